import Foundation
import PostgresStore
import Testing

/// A device may register the activity a start made before the worker records the start's chunk: Apple answered, the
/// app ran and called `track`, then the record. The statement after the record (`ConfirmStartsStatement`) confirms
/// those attempts (the track call found no attempt to confirm yet).
@Suite struct StartTrackedBeforeRecordTests {
    @Test func aStartTrackedBeforeItsChunkIsRecordedCountsAsStarted() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channels = try await gw.registerStarters(app, count: 3)
            let posted = try await gw.request(
                .post, "/api/push", json: StartConfirmationTests.start(name: "game"), auth: app.server)
            let pushID = try #require((posted.json["push_ids"] as? [String])?.first.flatMap(UUID.init(uuidString:)))

            // What a worker does (no worker runs here): read the push, select its first chunk, send it (not here).
            let ledger = DeliveryLedger(database: gw.database)
            let push = try #require(try await ledger.push(pushID))
            let (targets, _) = try await ledger.firstChunk(of: push, limit: 10)
            #expect(targets.count == 3)

            // Two devices register the started activity before the chunk's record.
            for (n, channel) in channels.prefix(2).enumerated() {
                let tracked = try await gw.track(
                    app, channel: channel, name: "game", token: hexToken(300 + n), systemID: "early-\(n)",
                    attributesType: "MatchAttributes")
                #expect(tracked.status == .created, "\(tracked.text)")
            }
            var outcome = ChunkOutcome(cursor: targets[2].channelID, processed: 3, sendStartedAt: Date())
            outcome.accepted = targets
            #expect(try await ledger.record(outcome, push: push, seq: 0, lastOfBatch: true) != nil)

            let outcomes = try await gw.database.scalar(
                """
                SELECT string_agg(outcome, ',' ORDER BY outcome) FROM start_attempts WHERE push_id = \(pushID)
                """, as: String.self)
            #expect(outcomes == "pending,started,started")
            let claimed = try await gw.database.scalar(
                "SELECT count(*) FROM live_activities WHERE start_push_id = \(pushID)", as: Int64.self)
            #expect(claimed == 2, "the instances are the start's")
        }
    }
}
