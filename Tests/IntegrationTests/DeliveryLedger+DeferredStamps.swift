import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresNIO
import PostgresStore
import Testing

/// A push sent in batches leaves its update stamps pending in `delivery_stamps`. A later push that an instance could
/// skip finds them in its select, folds them and reads again; the recurring fold takes those of finished pushes.
/// Neither lowers a stamp.
@Suite struct DeliveryLedgerDeferredStampTests {
    static func update(_ timestamp: Int) -> String {
        #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","#
            + #""name":"match","content_state":{"n":1},"timestamp":\#(timestamp)}}}}"#
    }

    /// Posts an update and reads it as a worker would.
    static func post(_ timestamp: Int, gw: GatewayHarness, app: TestApp) async throws -> PushForDelivery {
        let posted = try await gw.request(.post, "/api/push", json: Self.update(timestamp), auth: app.server)
        let pushID = try #require((posted.json["push_ids"] as? [String])?.first.flatMap(UUID.init(uuidString:)))
        return try #require(try await DeliveryLedger(database: gw.database).push(pushID))
    }

    static func record(_ push: PushForDelivery, _ targets: [PushTargets.Target], ledger: DeliveryLedger) async throws {
        var outcome = ChunkOutcome(
            cursor: targets[targets.count - 1].channelID, processed: targets.count, sendStartedAt: Date())
        outcome.accepted = targets
        try await ledger.record(outcome, push: push, seq: 0, lastOfBatch: true, deferStamps: true)
    }

    @Test func pendingStampsAreFoldedBeforeAnOlderPushSelectsAndAfterThePush() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 3)
            let ledger = DeliveryLedger(database: gw.database)
            let stamps = { (sql: String) in
                try await gw.database.scalar(PostgresQuery(unsafeSQL: sql), as: String.self)
            }
            let current = """
                SELECT string_agg(coalesce(last_apns_timestamp::text, '-'), ',' ORDER BY id) FROM live_activities
                """

            // Push A reaches all three; its stamps wait in one pending row, the instances are untouched.
            let a = try await Self.post(1_700_000_005, gw: gw, app: app)
            let targetsA = try await ledger.firstChunk(of: a, limit: 10).targets
            #expect(targetsA.count == 3 && targetsA.allSatisfy { $0.lastTimestamp == nil })
            try await Self.record(a, targetsA, ledger: ledger)
            #expect(try await stamps(current) == "-,-,-")
            #expect(try await stamps("SELECT count(*)::text FROM delivery_stamps") == "1")
            #expect(try await ledger.foldStamps(blocking: a) == 0, "a push never waits for its own stamps")

            // Push B is older: its select finds A's stamps pending, folds them and reads again, so B sees that every
            // instance got a newer update.
            let b = try await Self.post(1_700_000_004, gw: gw, app: app)
            let targetsB = try await ledger.firstChunk(of: b, limit: 10).targets
            #expect(targetsB.count == 3 && targetsB.allSatisfy { $0.lastTimestamp == 1_700_000_005 })
            #expect(try await stamps(current) == "1700000005,1700000005,1700000005")
            let lastPush = "SELECT string_agg(DISTINCT last_push_id::text, ',') FROM live_activities"
            #expect(try await stamps(lastPush) == a.id.uuidString.lowercased())
            #expect(try await stamps("SELECT count(*)::text FROM delivery_stamps") == "0")

            // Push C is newer and finishes with its stamps pending; meanwhile the first instance gets a newer update
            // from a single-chunk push (stamped at once). Then push D, older than C, reads a chunk in a batch: C's
            // stamps are folded first, and the newer update's stamp stays.
            let c = try await Self.post(1_700_000_009, gw: gw, app: app)
            try await Self.record(c, try await ledger.firstChunk(of: c, limit: 10).targets, ledger: ledger)
            let first = try #require(targetsA.map(\.instanceID).min())
            _ = try await gw.database.scalar(
                """
                UPDATE live_activities SET last_apns_timestamp = 1700000010, last_push_id = NULL
                WHERE id = \(first) RETURNING 1
                """, as: Int32.self)
            let d = try await Self.post(1_700_000_008, gw: gw, app: app)
            let targetsD = try await ledger.chunk(of: d, after: nil, upTo: nil, limit: 10)
            #expect(targetsD.compactMap(\.lastTimestamp).sorted() == [1_700_000_009, 1_700_000_009, 1_700_000_010])
            #expect(try await stamps(current) == "1700000010,1700000009,1700000009")
            #expect(try await stamps(lastPush) == c.id.uuidString.lowercased(), "the newer update's push must stay")
            #expect(try await stamps("SELECT count(*)::text FROM delivery_stamps") == "0")
            #expect(try await ledger.foldFinishedStamps() == 0)
        }
    }

    @Test func stampsOfAPushStillSendingWaitUntilItFinishes() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 2)
            let ledger = DeliveryLedger(database: gw.database)
            let push = try await Self.post(1_700_000_005, gw: gw, app: app)
            let targets = try await ledger.firstChunk(of: push, limit: 10).targets
            var outcome = ChunkOutcome(cursor: targets[0].channelID, processed: 1, sendStartedAt: Date())
            outcome.accepted = [targets[0]]
            #expect(try await ledger.record(outcome, push: push, seq: 0, lastOfBatch: false, deferStamps: true) != nil)
            #expect(try await ledger.foldFinishedStamps() == 0, "the push is still sending")
            #expect(try await ledger.foldFinishedStamps(olderThan: .zero) == 1, "unless its stamps are old enough")
            let stamped = try await gw.database.scalar(
                "SELECT count(*) FROM live_activities WHERE last_apns_timestamp = 1700000005", as: Int64.self)
            #expect(stamped == 1)
        }
    }

    /// The last batch of a push queues a fold at once (the recurring one may be 5 s away), and folds that run side by
    /// side take disjoint rows and still leave each instance with its newest stamp.
    @Test func theLastBatchQueuesAFoldAndFoldsSideBySideKeepTheNewestStamp() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 40)
            let ledger = DeliveryLedger(database: gw.database)
            let count = { (sql: String) in try await gw.database.scalar(PostgresQuery(unsafeSQL: sql), as: Int64.self) }
            // Two pushes in two batches each, one target per chunk: 80 pending rows, every instance in two of them.
            var pushes: [PushForDelivery] = []
            for timestamp in [1_700_000_006, 1_700_000_007] {  // the newer second, or its select folds the first's
                let push = try await Self.post(timestamp, gw: gw, app: app)
                _ = try await gw.database.scalar(
                    """
                    WITH p AS (UPDATE pushes SET state = 'sending', batches_total = 2 WHERE id = \(push.id)
                               RETURNING id, created_at)
                    INSERT INTO push_batches (push_id, seq, targets, push_created_at)
                    SELECT id, s, 20, created_at FROM p, generate_series(0, 1) s RETURNING 1
                    """, as: Int32.self)
                let targets = try await ledger.chunk(of: push, after: nil, upTo: nil, limit: 40)
                #expect(targets.count == 40)
                for (i, target) in targets.enumerated() {
                    var outcome = ChunkOutcome(cursor: target.channelID, processed: 1, sendStartedAt: Date())
                    outcome.accepted = [target]
                    let seq = Int32(i / 20)
                    try await ledger.record(
                        outcome, push: push, seq: seq, lastOfBatch: i % 20 == 19, deferStamps: true)
                }
                pushes.append(push)
            }
            let folds = "SELECT count(*) FROM jobs WHERE kind = 'delivery.fold_stamps' AND run_at <= now()"
            #expect(try await count(folds) == 2, "one fold queued by each push's last batch, none by the others")
            #expect(try await count("SELECT count(*) FROM delivery_stamps") == 80)
            #expect((40...80).contains(try await ledger.foldFinishedStamps(statements: 4)))
            #expect(try await count("SELECT count(*) FROM delivery_stamps") == 0)
            let newest = """
                SELECT count(*) FROM live_activities
                WHERE last_apns_timestamp = 1700000007 AND last_push_id = '\(pushes[1].id.uuidString.lowercased())'
                """
            #expect(try await count(newest) == 40, "the older push, folded alongside, never lowers a stamp")
        }
    }
}
