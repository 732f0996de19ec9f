import Foundation
import PostgresNIO
import PostgresStore
import Testing

/// A start attempt's window closes at the latest 48 hours after its push was created (`StartAttemptBound`): the
/// chunk's record writes no later window, the table refuses one, and the probes that read only the partitions of
/// pushes made since (the start's holds, the track call, the worker's follow-up) still find an attempt near it.
@Suite struct StartAttemptBoundTests {
    /// A start sent 47 h 55 min after its push was made: its window closes 5 minutes on (the bound), not the app's 10,
    /// and while it is open a second start is held and the device's track call confirms it.
    @Test func aLateStartsWindowClosesAtTheBoundAndIsStillFound() async throws {
        try await GatewayHarness.run { gw in
            let start = try await StartChunk(gw, channels: 1)
            try await Self.age(start.push.id, by: "47 hours 55 minutes", gw)
            #expect(try await start.record() != nil)
            let left = try await gw.database.scalar(
                """
                SELECT extract(epoch FROM window_until - now())::int8 FROM start_attempts
                WHERE push_id = \(start.push.id)
                """, as: Int64.self)
            #expect((240...300).contains(left), "the window closes \(left) s on")

            // Another start of the name, to the same channel: held by the attempt's open window.
            let posted = try await gw.request(
                .post, "/api/push", json: StartConfirmationTests.start(name: "game"), auth: start.app.server)
            let second = try #require((posted.json["push_ids"] as? [String])?.first.flatMap(UUID.init(uuidString:)))
            let push = try #require(try await start.ledger.push(second))
            let (targets, _) = try await start.ledger.firstChunk(of: push, limit: 10)
            #expect(targets.map(\.hold) == [.alreadyActive])

            try await Self.track(start, gw, systemID: "late")
            try await Self.expectConfirmed(start, gw, systemID: "late")
        }
    }

    /// The worker's follow-up (`ConfirmStartsStatement`) finds such an attempt too: the device registered first.
    @Test func aLateStartTrackedBeforeItsRecordIsConfirmed() async throws {
        try await GatewayHarness.run { gw in
            let start = try await StartChunk(gw, channels: 1)
            try await Self.age(start.push.id, by: "47 hours 55 minutes", gw)
            try await Self.track(start, gw, systemID: "early")
            #expect(try await start.record() != nil)
            try await Self.expectConfirmed(start, gw, systemID: "early")
        }
    }

    /// A start sent 48 hours after its push was made writes no attempt (no window is left to open).
    @Test func aStartSentPastTheBoundWritesNoAttempt() async throws {
        try await GatewayHarness.run { gw in
            let start = try await StartChunk(gw, channels: 1)
            try await Self.age(start.push.id, by: "48 hours 1 minute", gw)
            #expect(try await start.record() != nil)
            #expect(try await StartTrackOverlapsRecordTests.outcomes(gw, start.push.id) == nil)
        }
    }

    /// A window past the bound is refused by the table itself.
    @Test func anAttemptPastTheBoundIsRefused() async throws {
        try await GatewayHarness.run { gw in
            let start = try await StartChunk(gw, channels: 1)
            let insert = { (after: String) in
                try await gw.database.client.query(
                    """
                    INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token,
                                                window_until, push_created_at)
                    SELECT id, app_id, \(UUID(uuidString: start.channels[0])!), 'game', 'MatchAttributes', 'x',
                           created_at + \(after)::interval, created_at
                    FROM pushes WHERE id = \(start.push.id)
                    """)
            }
            await #expect(throws: PSQLError.self) { try await insert("48 hours 1 second") }
            try await insert("48 hours")
        }
    }

    /// The device tracks the started activity as `systemID`: a new instance.
    static func track(_ start: StartChunk, _ gw: GatewayHarness, systemID: String) async throws {
        let tracked = try await gw.track(
            start.app, channel: start.channels[0], name: "game", token: hexToken(300), systemID: systemID,
            attributesType: "MatchAttributes")
        #expect(tracked.status == .created, "\(tracked.text)")
    }

    /// The start counted `started`, the instance `systemID` claimed by its push.
    static func expectConfirmed(_ start: StartChunk, _ gw: GatewayHarness, systemID: String) async throws {
        #expect(try await StartTrackOverlapsRecordTests.outcomes(gw, start.push.id) == "started")
        #expect(try await StartTrackOverlapsRecordTests.claimedBy(gw, systemID: systemID) == start.push.id)
    }

    /// Moves the push's creation `interval` back (its batches with it: they name the push by id and creation), as
    /// if it had waited that long to be sent.
    static func age(_ pushID: UUID, by interval: String, _ gw: GatewayHarness) async throws {
        try await gw.database.transaction { connection in
            // Replica role: the batches' foreign key to the push is not checked until both rows moved.
            for statement: PostgresQuery in [
                "SET LOCAL session_replication_role = replica",
                "UPDATE pushes SET created_at = created_at - \(interval)::interval WHERE id = \(pushID)",
                "UPDATE push_batches SET push_created_at = push_created_at - \(interval)::interval WHERE push_id = \(pushID)",
            ] {
                try await connection.query(statement, logger: gw.database.logger)
            }
        }
    }
}
