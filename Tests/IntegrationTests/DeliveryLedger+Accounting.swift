import Foundation
import LiveActivitiesCore
import PostgresNIO
import PostgresStore
import Testing

/// Every target of a push is accounted for: `sent + superseded + skipped + canceled = targeted`, also when instances
/// leave the audience between the push's plan and their chunk (a newer end, the device, a deleted channel).
@Suite struct DeliveryLedgerAccountingTests {
    @Test func targetsGoneBeforeTheirChunkCountAsSkipped() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 40)
            let ledger = DeliveryLedger(database: gw.database)
            // Planned as one batch of 40; then ten instances end before the batch reads its chunk.
            let push = try await Self.sending(1_700_000_005, targets: 40, gw: gw, app: app)
            _ = try await gw.database.scalar(
                """
                WITH e AS (UPDATE live_activities SET state = 'ended', ended_at = now()
                           WHERE id IN (SELECT id FROM live_activities ORDER BY id LIMIT 10) RETURNING 1)
                SELECT count(*)::int4 FROM e
                """, as: Int32.self)
            let targets = try await ledger.chunk(of: push, after: nil, upTo: nil, limit: 100)
            #expect(targets.count == 30)
            var outcome = ChunkOutcome(
                cursor: targets[targets.count - 1].channelID, processed: targets.count, sendStartedAt: Date())
            outcome.accepted = targets
            try await ledger.record(outcome, push: push, seq: 0, lastOfBatch: true, deferStamps: true)
            let counts = try await gw.database.scalar(
                """
                SELECT state || ' ' || targeted || ' = ' || sent || ' sent + ' || skipped || ' skipped + '
                       || superseded || ' superseded + ' || canceled || ' canceled'
                FROM push_report WHERE push_id = \(push.id)
                """, as: String.self)
            #expect(counts == "done 40 = 30 sent + 10 skipped + 0 superseded + 0 canceled")
        }
    }

    /// Batches planned with estimated sizes (`BatchPlan.estimated`): a finished batch's count replaces its estimate
    /// in `targeted`; a stopped one that had read more than its estimate counts what it read.
    @Test func estimatedBatchesCorrectTargetedWhenTheyFinishOrStop() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 40)
            let ledger = DeliveryLedger(database: gw.database)
            let report = { (push: PushForDelivery) in
                try await gw.database.scalar(
                    """
                    SELECT state || ' ' || targeted || ' = ' || sent || ' sent + ' || skipped || ' skipped + '
                           || canceled || ' canceled'
                    FROM push_report WHERE push_id = \(push.id)
                    """, as: String.self)
            }
            for (round, (estimate, stop)) in [(60, false), (10, true)].enumerated() {
                let push = try await Self.sending(
                    1_700_000_005 + round, targets: estimate, estimated: true, gw: gw, app: app)
                let targets = try await ledger.chunk(of: push, after: nil, upTo: nil, limit: 100)
                #expect(targets.count == 40)
                for half in [targets[..<20], targets[20...]] {
                    var outcome = ChunkOutcome(
                        cursor: half[half.endIndex - 1].channelID, processed: half.count, sendStartedAt: Date())
                    outcome.accepted = Array(half)
                    let last = half.endIndex == targets.endIndex
                    try await ledger.record(outcome, push: push, seq: 0, lastOfBatch: last && !stop, deferStamps: true)
                    if stop && !last {
                        // A DELETE while the second chunk is in flight: it cancels what the estimate had left (none).
                        let deleted = try await gw.request(.delete, "/api/pushes/\(push.id)", auth: app.server)
                        #expect(deleted.json["canceled"] as? Int == 0, "\(deleted.text)")
                        #expect(try await report(push) == "canceled 20 = 20 sent + 0 skipped + 0 canceled")
                    }
                }
                let expected =
                    stop
                    ? "canceled 40 = 40 sent + 0 skipped + 0 canceled" : "done 40 = 40 sent + 0 skipped + 0 canceled"
                #expect(try await report(push) == expected, "estimate \(estimate)")
            }
        }
    }

    /// A push posted with `timestamp` and recorded as sending one batch of `targets` (an estimate if `estimated`).
    static func sending(_ timestamp: Int, targets: Int, estimated: Bool = false, gw: GatewayHarness, app: TestApp)
        async throws -> PushForDelivery
    {
        let push = try await DeliveryLedgerDeferredStampTests.post(timestamp, gw: gw, app: app)
        _ = try await gw.database.scalar(
            """
            WITH p AS (UPDATE pushes SET state = 'sending', batches_total = 1, targeted = \(targets)
                       WHERE id = \(push.id) RETURNING id, created_at, app_id)
            INSERT INTO push_batches (push_id, seq, targets, targets_estimated, push_created_at, app_id)
            SELECT id, 0, \(targets), \(estimated), created_at, app_id FROM p RETURNING 1
            """, as: Int32.self)
        return push
    }
}
