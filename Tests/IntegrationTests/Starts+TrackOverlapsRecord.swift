import Foundation
import PostgresNIO
import PostgresStore
import Testing

/// A device's track call and a start's chunk record that overlap, each reading before the other commits (read
/// committed): neither statement sees the other's row, so the follow-up after each commit (`ConfirmStartsStatement`)
/// confirms the attempt. Each test holds one side back on a row lock held by an open transaction, so the overlap
/// happens every run; the attempt stayed `pending` without the follow-up of the side that commits last. The row is
/// deleted before its transaction commits, so the held statement then goes on as if it had never been there.
@Suite struct StartTrackOverlapsRecordTests {
    /// The track call reads first and commits last: its own follow-up confirms.
    @Test func aTrackThatCommitsAfterTheRecordConfirmsTheStart() async throws {
        try await GatewayHarness.run { gw in
            let start = try await StartChunk(gw, channels: 1)
            let (app, channel, push, holder) = (start.app, start.channels[0], start.push, gw.database)
            let track = try await holder.transaction { connection in
                // An uncommitted instance of the name: the track call's insert waits on it (the unique index).
                try await connection.query(
                    """
                    INSERT INTO live_activities (app_id, channel_id, name, attributes_type, system_activity_id,
                                                 environment, push_token)
                    VALUES (\(push.appID), \(UUID(uuidString: channel)!), 'game', 'MatchAttributes', 'blocker',
                            'development', \(hexToken(999)))
                    """, logger: holder.logger)
                let track = Task {
                    try await gw.track(
                        app, channel: channel, name: "game", token: hexToken(300), systemID: "late",
                        attributesType: "MatchAttributes")
                }
                try await Self.waitForALockWait(gw, on: "x.proof, x.contract_version, x.n")
                // The record commits while the track call waits; neither has seen the other.
                #expect(try await start.record() != nil)
                #expect(try await Self.outcomes(gw, push.id) == "pending")
                // Gone when this transaction commits: the track call's insert goes on.
                try await connection.query(
                    "DELETE FROM live_activities WHERE system_activity_id = 'blocker'", logger: holder.logger)
                return track
            }
            let tracked = try await within(.seconds(10), "the track call") { try await track.value }
            #expect(tracked.status == .created, "\(tracked.text)")
            #expect(try await Self.outcomes(gw, push.id) == "started")
            #expect(try await Self.claimedBy(gw, systemID: "late") == push.id)
        }
    }

    /// The record reads first and commits last: the worker's follow-up confirms.
    @Test func aRecordThatCommitsAfterTheTrackConfirmsTheStart() async throws {
        try await GatewayHarness.run { gw in
            let start = try await StartChunk(gw, channels: 1)
            let (app, channel, push, holder) = (start.app, start.channels[0], start.push, gw.database)
            let record = try await holder.transaction { connection in
                // An uncommitted attempt with the record's key: the record's insert waits on it.
                try await connection.query(
                    """
                    INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token,
                                                window_until, push_created_at)
                    SELECT id, app_id, \(UUID(uuidString: channel)!), 'game', 'MatchAttributes', 'blocker',
                           now() + interval '1 hour', created_at
                    FROM pushes WHERE id = \(push.id) AND app_id = \(push.appID)
                    """, logger: holder.logger)
                let record = Task { try await start.record() }
                try await Self.waitForALockWait(gw, on: "INSERT INTO start_attempts")
                // The device registers while the record waits: its call sees no attempt, and commits.
                let tracked = try await gw.track(
                    app, channel: channel, name: "game", token: hexToken(300), systemID: "early",
                    attributesType: "MatchAttributes")
                #expect(tracked.status == .created, "\(tracked.text)")
                #expect(try await Self.claimedBy(gw, systemID: "early") == nil)
                // Gone when this transaction commits: the record's insert goes on.
                try await connection.query(
                    "DELETE FROM start_attempts WHERE token = 'blocker'", logger: holder.logger)
                return record
            }
            #expect(try await within(.seconds(10), "the record") { try await record.value } != nil)
            #expect(try await Self.outcomes(gw, push.id) == "started")
            #expect(try await Self.claimedBy(gw, systemID: "early") == push.id)
        }
    }

    /// Waits until a statement of this database whose text has `text` (within its first 1,024 bytes, what
    /// `pg_stat_activity` keeps) waits on a lock.
    static func waitForALockWait(_ gw: GatewayHarness, on text: String) async throws {
        try await until("a statement waiting on the held row", timeout: .seconds(10)) {
            let waiting = try await gw.database.scalar(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND strpos(query, \(text)) > 0
                """, as: Int64.self)
            return waiting > 0 ? () : nil
        }
    }

    /// The push's attempts' outcomes, comma-separated (nil: none).
    static func outcomes(_ gw: GatewayHarness, _ pushID: UUID) async throws -> String? {
        let rows = try await gw.database.client.query(
            "SELECT string_agg(outcome, ',' ORDER BY outcome) FROM start_attempts WHERE push_id = \(pushID)")
        for try await value in rows.decode(String?.self) { return value }
        return nil
    }

    static func claimedBy(_ gw: GatewayHarness, systemID: String) async throws -> UUID? {
        let rows = try await gw.database.client.query(
            "SELECT start_push_id FROM live_activities WHERE system_activity_id = \(systemID)")
        for try await id in rows.decode(UUID?.self) { return id }
        return nil
    }
}
