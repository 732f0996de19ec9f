import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresNIO
import PostgresStore
import Testing

/// A push's batches are equal-width ranges of channel ids sized from its first chunk, counted in one pass; ids that
/// are not spread evenly get exact boundaries by rank instead. Either way the batches cover every target once, and
/// each batch's size is what its range holds.
@Suite struct PushTargetsBatchPlanTests {
    /// Targets per batch as the database sees them, for the plan's ranges.
    static func actualSizes(_ plan: BatchPlan, gw: GatewayHarness) async throws -> [Int] {
        var sizes: [Int] = []
        for index in 0..<plan.sizes.count {
            let lower = index == 0 ? nil : plan.boundaries[index - 1]
            let upper = index == plan.boundaries.count ? nil : plan.boundaries[index]
            sizes.append(
                Int(
                    try await gw.database.scalar(
                        """
                        SELECT count(*) FROM live_activities
                        WHERE (\(lower)::uuid IS NULL OR channel_id > \(lower))
                          AND (\(upper)::uuid IS NULL OR channel_id <= \(upper))
                        """, as: Int64.self)))
        }
        return sizes
    }

    static func plan(_ gw: GatewayHarness, app: TestApp, batchSize: Int, sample: Int) async throws -> BatchPlan {
        let appID = try await gw.database.scalar("SELECT id FROM apps WHERE app_key = \(app.key)", as: Int64.self)
        let targets = PushTargets(appID: appID, event: .update, name: "match", attributesType: nil, audience: .all)
        let first = try await targets.chunk(
            after: nil, upTo: nil, limit: sample, on: gw.database.client, logger: gw.database.logger
        ).targets
        return try await targets.batchPlan(
            batchSize: batchSize, sampled: first.count, reach: first[first.count - 1].channelID,
            on: gw.database.client, logger: gw.database.logger)
    }

    @Test func randomChannelIDsAreSplitIntoEqualWidthRanges() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 2000)
            let plan = try await Self.plan(gw, app: app, batchSize: 200, sample: 100)
            #expect(plan.total == 2000)
            #expect(try await Self.actualSizes(plan, gw: gw) == plan.sizes)
            #expect(plan.sizes.count >= 5 && plan.sizes.allSatisfy { $0 <= 400 }, "\(plan.sizes)")
            // Equal widths, not every 200th id: the boundaries are thresholds, not channel ids.
            let boundaryIsChannel = try await gw.database.scalar(
                "SELECT count(*) FROM channels WHERE id = ANY(\(plan.boundaries))", as: Int64.self)
            #expect(boundaryIsChannel == 0)
        }
    }

    @Test func crowdedChannelIDsGetBoundariesByRank() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            // Half the ids random, half in one narrow band near the end: equal widths would put that half, and the
            // random ids next to it, in one range.
            _ = try await gw.database.scalar(
                """
                WITH app AS (SELECT id, apns_environment FROM apps WHERE app_key = \(app.key)),
                ch AS (
                    INSERT INTO channels (id, app_id, install_id)
                    SELECT CASE WHEN g <= 500 THEN gen_random_uuid()
                                ELSE ('f0000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid END,
                           app.id, 'skew-' || g
                    FROM app, generate_series(1, 1000) g
                    RETURNING id, app_id, install_id
                ), la AS (
                    INSERT INTO live_activities (app_id, channel_id, name, attributes_type, system_activity_id,
                                                 push_token, environment)
                    SELECT ch.app_id, ch.id, 'match', 'MatchAttributes', ch.install_id, repeat('ab', 32),
                           app.apns_environment
                    FROM ch, app
                    RETURNING 1
                )
                SELECT count(*) FROM la
                """, as: Int64.self)
            let plan = try await Self.plan(gw, app: app, batchSize: 100, sample: 50)
            #expect(plan.total == 1000)
            #expect(plan.sizes == Array(repeating: 100, count: 10), "by rank: every 100th channel id")
            #expect(try await Self.actualSizes(plan, gw: gw) == plan.sizes)
        }
    }

    /// Each kind of target (instances, instances beside a broadcast channel, start tokens), to all and to a tag, is
    /// counted and planned (`TargetStatements`) as its chunk select reads it (`PushTargets.chunkSelect`): the two
    /// state the same rows in different places.
    @Test func everyKindOfTargetIsCountedAndPlannedAsItsChunksReadIt() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 60)
            // Seeds 1-20 subscribed to a broadcast channel, 11-40 tagged, 1-40 with a start token; 41-45 started
            // past the app's maximum age (8 hours), 46-50 in the environment the app does not send to: neither kind
            // is a target.
            _ = try await gw.database.scalar(
                """
                WITH seeded AS (
                    SELECT c.id, c.app_id, substr(c.install_id, 6)::int AS n, a.apns_environment
                    FROM channels c JOIN apps a ON a.id = c.app_id WHERE a.app_key = \(app.key)
                ), subscribed AS (
                    UPDATE live_activities SET broadcast_channel_id = 'bc-1'
                    WHERE channel_id IN (SELECT id FROM seeded WHERE n <= 20) RETURNING 1
                ), tagged AS (
                    INSERT INTO channel_tags (channel_id, app_id, tag_group, tag)
                    SELECT id, app_id, 'tier', 'vip' FROM seeded WHERE n BETWEEN 11 AND 40 RETURNING 1
                ), tokens AS (
                    INSERT INTO push_to_start_tokens (channel_id, app_id, attributes_type, token, environment)
                    SELECT id, app_id, 'MatchAttributes', repeat('cd', 28) || lpad(to_hex(n), 8, '0'), apns_environment
                    FROM seeded WHERE n <= 40 RETURNING 1
                ), aged AS (
                    UPDATE live_activities SET started_at = now() - interval '9 hours'
                    WHERE channel_id IN (SELECT id FROM seeded WHERE n BETWEEN 41 AND 45) RETURNING 1
                ), elsewhere AS (
                    UPDATE live_activities l
                    SET environment = CASE s.apns_environment WHEN 'production' THEN 'development' ELSE 'production' END
                    FROM seeded s WHERE l.channel_id = s.id AND s.n BETWEEN 46 AND 50 RETURNING 1
                )
                SELECT (SELECT count(*) FROM subscribed) + (SELECT count(*) FROM tagged) + (SELECT count(*) FROM tokens)
                       + (SELECT count(*) FROM aged) + (SELECT count(*) FROM elsewhere)
                """, as: Int64.self)
            let appID = try await gw.database.scalar("SELECT id FROM apps WHERE app_key = \(app.key)", as: Int64.self)
            let update = PushTargets(appID: appID, event: .update, name: "match", attributesType: nil, audience: .all)
            var beside = update
            beside.broadcastChannelID = "bc-1"
            let start = PushTargets(
                appID: appID, event: .start, name: "match", attributesType: "MatchAttributes", audience: .all)
            let cases: [(PushTargets, all: Int, tagged: Int)] = [(update, 50, 30), (beside, 30, 20), (start, 40, 30)]
            for (kind, all, tagged) in cases {
                for (audience, expected) in [(Audience.all, all), (.tag("vip", group: "tier"), tagged)] {
                    var targets = kind
                    targets.audience = audience
                    let read = try await targets.chunk(
                        after: nil, upTo: nil, limit: 1000, on: gw.database.client, logger: gw.database.logger
                    ).targets
                    let label = "\(kind.event) \(String(describing: kind.broadcastChannelID)) \(audience)"
                    #expect(read.count == expected, "\(label): read")
                    let counted = try await gw.database.client.withConnection { connection in
                        try await targets.count(on: connection, logger: gw.database.logger)
                    }
                    #expect(counted == expected, "\(label): counted")
                    let plan = try await targets.batchPlan(
                        batchSize: 5, sampled: read.count, reach: read[read.count - 1].channelID,
                        on: gw.database.client, logger: gw.database.logger)
                    #expect(plan.total == expected, "\(label): planned")
                }
            }
        }
    }
}
