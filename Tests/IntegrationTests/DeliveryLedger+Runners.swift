import Foundation
import LiveActivitiesCore
import PostgresNIO
import PostgresStore
import Testing

/// A batch claimed by a new run of its job (the old run's worker lost its lease) counts only the new run's chunks: the
/// old run's record, declaration and finish are refused, so no chunk is counted twice and the old run stops.
@Suite struct DeliveryLedgerRunnerTests {
    @Test func onlyTheLatestRunOfABatchRecordsDeclaresOrFinishesIt() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 40)
            let ledger = DeliveryLedger(database: gw.database)
            let push = try await DeliveryLedgerAccountingTests.sending(1_700_000_005, targets: 40, gw: gw, app: app)
            let old = try #require(try await ledger.claimBatch(pushID: push.id, appID: push.appID, seq: 0)?.runner)
            let targets = try await ledger.chunk(of: push, after: nil, upTo: nil, limit: 20)
            var outcome = ChunkOutcome(
                cursor: targets[targets.count - 1].channelID, processed: targets.count, sendStartedAt: Date())
            outcome.accepted = targets
            #expect(try await ledger.record(outcome, push: push, seq: 0, deferStamps: true, runner: old) != nil)

            // The lease is lost; another run claims the batch and reads the cursor the old run left.
            let new = try #require(try await ledger.claimBatch(pushID: push.id, appID: push.appID, seq: 0))
            #expect(new.runner != old && new.cursor == targets[targets.count - 1].channelID)
            #expect(try await ledger.declareChunk(pushID: push.id, appID: push.appID, seq: 0, runner: old) == nil)
            let rest = try await ledger.chunk(of: push, after: new.cursor, upTo: nil, limit: 100)
            #expect(rest.count == 20)
            var late = ChunkOutcome(cursor: rest[rest.count - 1].channelID, processed: 20, sendStartedAt: Date())
            late.accepted = Array(rest.dropFirst())
            late.failures = [(rest[0], DeliveryFailure(status: 410, reason: "Unregistered", invalidatesToken: true))]
            // The old run's record of the chunk it had in flight is refused, failures included (the new run records
            // them), and it cannot finish the batch.
            #expect(try await ledger.record(late, push: push, seq: 0, deferStamps: true, runner: old) == nil)
            #expect(try await gw.database.scalar("SELECT count(*)::int4 FROM push_failures", as: Int32.self) == 0)
            try await ledger.finishBatch(pushID: push.id, appID: push.appID, seq: 0, runner: old)
            #expect(try await Self.report(gw, push) == "sending 40 = 20 sent + 0 skipped")
            // The new run sends it again and finishes.
            try await ledger.record(late, push: push, seq: 0, lastOfBatch: true, deferStamps: true, runner: new.runner)
            #expect(try await Self.report(gw, push) == "done 40 = 40 sent + 0 skipped")
            #expect(try await gw.database.scalar("SELECT count(*)::int4 FROM push_failures", as: Int32.self) == 1)
        }
    }

    static func report(_ gw: GatewayHarness, _ push: PushForDelivery) async throws -> String {
        try await gw.database.scalar(
            """
            SELECT state || ' ' || targeted || ' = ' || sent || ' sent + ' || skipped || ' skipped'
            FROM push_report WHERE push_id = \(push.id)
            """, as: String.self)
    }
}
