import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresNIO
import PostgresStore
import Testing

/// A push sent in batches leaves its update stamps pending in `delivery_stamps`. A later push that an instance could
/// skip finds them in its select, folds them and reads again; lookups read them where they are; a newer push drops
/// them once it has finished. None of this lowers a stamp.
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

    /// Runs a query of one text value.
    static func text(_ gw: GatewayHarness) -> @Sendable (String) async throws -> String {
        { sql in try await gw.database.scalar(PostgresQuery(unsafeSQL: sql), as: String.self) }
    }

    /// Every instance's last APNs timestamp ("-" for none), comma-separated in the given order.
    static func lastTimestamps(orderedBy order: String) -> String {
        "SELECT string_agg(coalesce(last_apns_timestamp::text, '-'), ',' ORDER BY \(order)) FROM live_activities"
    }

    @Test func pendingStampsAreFoldedBeforeAnOlderPushSelectsAndAfterThePush() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 3)
            let ledger = DeliveryLedger(database: gw.database)
            let stamps = Self.text(gw)
            let current = Self.lastTimestamps(orderedBy: "id")

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
            #expect(try await ledger.foldPendingStamps() == .init())
        }
    }

    /// A channel lookup and a tap's attribution read a pending stamp where it is; no instance row is written.
    @Test func pendingStampsAreReadWhereTheyAre() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 3)
            let ledger = DeliveryLedger(database: gw.database)
            let channel = try await gw.database.scalar(
                "SELECT channel_id FROM live_activities WHERE system_activity_id = 'sys-seed-2'", as: UUID.self)
            let lastUpdate = {
                let lookup = try await gw.request(.get, "/api/channels/\(channel)", auth: app.server)
                let activities = (lookup.json["channel"] as? [String: Any])?["live_activities"] as? [[String: Any]]
                return try #require(activities?.first)["last_update"] as? String
            }
            let attribution = {
                let launch = try await gw.request(
                    .post, "/api/channels/\(channel)/launches", json: #"{"system_activity_id":"sys-seed-2"}"#,
                    auth: app.device)
                return launch.json["push_id"] as? String
            }
            #expect(try await lastUpdate() == nil)
            #expect(try await attribution() == nil)

            // Push A reaches the three instances in three chunks (rows), the middle one holding the looked-up channel.
            let a = try await Self.post(1_700_000_005, gw: gw, app: app)
            for target in try await ledger.firstChunk(of: a, limit: 10).targets {
                var outcome = ChunkOutcome(cursor: target.channelID, processed: 1, sendStartedAt: Date())
                outcome.accepted = [target]
                try await ledger.record(outcome, push: a, seq: 0, deferStamps: true)
            }
            #expect(try await lastUpdate() != nil, "the pending stamp's delivery time")
            #expect(try await attribution() == a.id.uuidString.lowercased())
            let written =
                "SELECT count(*) FROM live_activities WHERE last_update_at IS NOT NULL OR last_push_id IS NOT NULL"
            #expect(try await gw.database.scalar(PostgresQuery(unsafeSQL: written), as: Int64.self) == 0)

            // An update stamped in the row that is newer than the pending one wins; an older one does not.
            _ = try await gw.database.scalar(
                """
                UPDATE live_activities SET last_apns_timestamp = 1700000006, last_push_id = NULL
                WHERE channel_id = \(channel) RETURNING 1
                """, as: Int32.self)
            #expect(try await attribution() == nil)
            _ = try await gw.database.scalar(
                "UPDATE live_activities SET last_apns_timestamp = 1700000004 WHERE channel_id = \(channel) RETURNING 1",
                as: Int32.self)
            #expect(try await attribution() == a.id.uuidString.lowercased())
        }
    }

    /// An older push folds only the pending rows of the channels its chunk reads: a large one folds as it goes.
    @Test func anOlderPushFoldsTheRowsOfItsChunkOnly() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 3)
            let ledger = DeliveryLedger(database: gw.database)
            let stamps = Self.text(gw)
            let current = Self.lastTimestamps(orderedBy: "channel_id")
            let a = try await Self.post(1_700_000_005, gw: gw, app: app)
            let targets = try await ledger.firstChunk(of: a, limit: 10).targets
            for target in targets {  // one row per channel
                var outcome = ChunkOutcome(cursor: target.channelID, processed: 1, sendStartedAt: Date())
                outcome.accepted = [target]
                try await ledger.record(outcome, push: a, seq: 0, deferStamps: true)
            }
            let b = try await Self.post(1_700_000_004, gw: gw, app: app)
            let first = try await ledger.chunk(of: b, after: nil, upTo: nil, limit: 1)
            #expect(first.map(\.lastTimestamp) == [1_700_000_005])
            #expect(try await stamps(current) == "1700000005,-,-")
            let rest = try await ledger.chunk(of: b, after: first[0].channelID, upTo: targets[1].channelID, limit: 5)
            #expect(rest.map(\.lastTimestamp) == [1_700_000_005])
            #expect(try await stamps(current) == "1700000005,1700000005,-")
            #expect(try await stamps("SELECT count(*)::text FROM delivery_stamps") == "1")
        }
    }

    /// Once a newer push of the name has finished, the older push's rows are dropped without writing the instances the
    /// newer one reached; those it did not reach get the older stamp. Not while a chunk of the older push is in flight.
    /// Once no instance of the name is active, the rest are folded.
    @Test func aNewerPushSupersedesPendingStampsAndTheRestFoldOnceNoneIsActive() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 40)
            let ledger = DeliveryLedger(database: gw.database)
            let count = { (sql: String) in try await gw.database.scalar(PostgresQuery(unsafeSQL: sql), as: Int64.self) }
            let folds = "SELECT count(*) FROM jobs WHERE kind = 'delivery.fold_stamps' AND run_at <= now()"
            // Two pushes in two batches each, one target per chunk. The older reaches all 40, the newer 30 of them.
            var pushes: [PushForDelivery] = []
            for (timestamp, reach) in [(1_700_000_006, 40), (1_700_000_007, 30)] {
                let push = try await Self.post(timestamp, gw: gw, app: app)
                _ = try await gw.database.scalar(
                    """
                    WITH p AS (UPDATE pushes SET state = 'sending', batches_total = 2 WHERE id = \(push.id)
                               RETURNING id, created_at, app_id)
                    INSERT INTO push_batches (push_id, seq, targets, push_created_at, app_id)
                    SELECT id, s, 20, created_at, app_id FROM p, generate_series(0, 1) s RETURNING 1
                    """, as: Int32.self)
                let targets = try await ledger.chunk(of: push, after: nil, upTo: nil, limit: 40)
                #expect(targets.count == 40)
                for (i, target) in targets.enumerated() {
                    var outcome = ChunkOutcome(cursor: target.channelID, processed: 1, sendStartedAt: Date())
                    if i < reach { outcome.accepted = [target] } else { outcome.skipped = 1 }
                    try await ledger.record(
                        outcome, push: push, seq: Int32(i / 20), lastOfBatch: i % 20 == 19, deferStamps: true)
                }
                pushes.append(push)
                #expect(try await count(folds) == (pushes.count == 1 ? 0 : 1), "queued when another push is pending")
            }
            #expect(try await count("SELECT count(*) FROM delivery_stamps") == 70)
            // A chunk of the older push still in flight (a canceled push's last one is recorded): not dropped yet.
            let lease = { (until: String) in
                try await count(
                    """
                    WITH b AS (UPDATE push_batches SET sending_until = \(until)
                               WHERE push_id = '\(pushes[0].id)' AND seq = 0 RETURNING 1)
                    SELECT count(*) FROM b
                    """)
            }
            #expect(try await lease("now() + interval '1 minute'") == 1)
            #expect(try await ledger.foldPendingStamps() == .init())
            #expect(try await lease("NULL") == 1)
            // Another fold of the name under way (its lock held here): this one leaves the name to it.
            let appID = try await gw.database.scalar("SELECT id FROM apps WHERE app_key = \(app.key)", as: Int64.self)
            try await gw.database.transaction { connection in
                let key = "\(appID):match"
                _ = try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))", logger: gw.database.logger
                ).collect()
                #expect(try await ledger.foldPendingStamps() == .init())
            }
            let folded = try await ledger.foldPendingStamps()
            #expect(folded == .init(rowsDropped: 40, instancesStamped: 10))
            #expect(try await count("SELECT count(*) FROM delivery_stamps") == 30)
            #expect(try await count("SELECT count(*) FROM delivery_stamp_pushes") == 1)
            let older = """
                SELECT count(*) FROM live_activities
                WHERE last_apns_timestamp = 1700000006 AND last_push_id = '\(pushes[0].id.uuidString.lowercased())'
                """
            #expect(try await count(older) == 10, "the 10 the newer push did not reach")
            #expect(try await count("SELECT count(*) FROM live_activities WHERE last_push_id IS NULL") == 30)
            #expect(try await ledger.foldPendingStamps() == .init(), "one push pending: nothing to drop")

            // Every instance ends (by the device, say): the newer push's rows are folded, for taps on ended activities.
            _ = try await count(
                "WITH e AS (UPDATE live_activities SET state = 'ended', ended_at = now() RETURNING 1) SELECT count(*) FROM e"
            )
            #expect(try await ledger.foldPendingStamps() == .init(rowsDropped: 0, instancesStamped: 30))
            #expect(try await count("SELECT count(*) FROM delivery_stamps") == 0)
            #expect(try await count("SELECT count(*) FROM delivery_stamp_pushes") == 0)
            let newer =
                "SELECT count(*) FROM live_activities WHERE last_push_id = '\(pushes[1].id.uuidString.lowercased())'"
            #expect(try await count(newer) == 30)
        }
    }
}
