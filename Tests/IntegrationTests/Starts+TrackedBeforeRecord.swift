import Foundation
import PostgresStore
import Testing

/// A device may register the activity a start made before the worker records the start's chunk: Apple answered, the
/// app ran and called `track`, then the record. The statement after the record (`ConfirmStartsStatement`) confirms
/// those attempts (the track call found no attempt to confirm yet).
@Suite struct StartTrackedBeforeRecordTests {
    @Test func aStartTrackedBeforeItsChunkIsRecordedCountsAsStarted() async throws {
        try await GatewayHarness.run { gw in
            let start = try await StartChunk(gw, channels: 3)
            let (app, channels, pushID) = (start.app, start.channels, start.push.id)

            // Two devices register the started activity before the chunk's record.
            for (n, channel) in channels.prefix(2).enumerated() {
                let tracked = try await gw.track(
                    app, channel: channel, name: "game", token: hexToken(300 + n), systemID: "early-\(n)",
                    attributesType: "MatchAttributes")
                #expect(tracked.status == .created, "\(tracked.text)")
            }
            #expect(try await start.record() != nil)

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
