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
}
