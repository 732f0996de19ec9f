import Foundation
import PostgresNIO

/// The statements that count a push's targets and plan its batches (`PushTargets`), each in three variants, one per
/// kind of target row `t`:
/// - `Instances`: the active instances of app `$1`'s name `$2` that have a token, of the app's current environment,
///   younger than its maximum age;
/// - `InstancesBesideBroadcast`: the same, less those subscribed to broadcast channel `$3` (delivery `both`: they get
///   the broadcast, and may have no token);
/// - `StartTokens`: the active push-to-start tokens of app `$1`'s attributes type `$2`, of its current environment.
///
/// All of them on channels with live activities enabled, and in the audience (`AudienceStatement`). Channels with live
/// activities disabled are few, and found in their own partial index (`channels_live_activities_disabled`): the
/// targets need no join with `channels`, whose primary-key probe per target was most of a chunk's select. The app's
/// environment and maximum age are read once a statement (subqueries on `$1` alone, run before the scan), not joined
/// to every target (docs/benchmarks.md, "Issue 50 in one sitting").
enum TargetStatements {
    static let all: [any NamedStatement.Type] = [
        CountInstances.self, CountInstancesBesideBroadcast.self, CountStartTokens.self, PlanInstances.self,
        PlanInstancesBesideBroadcast.self, PlanStartTokens.self, PlanInstancesByRank.self,
        PlanInstancesBesideBroadcastByRank.self, PlanStartTokensByRank.self,
    ]

    /// How many targets there are now.
    enum CountInstances: AudienceStatement {
        static let name = "lagw_targets_count_instances"
        static let template = """
            SELECT count(*)
            FROM live_activities t
            WHERE t.app_id = $1 AND t.name = $2 AND t.state = 'active'
              AND t.push_token IS NOT NULL
              AND t.environment = (SELECT apns_environment FROM apps WHERE id = $1)
              AND t.started_at > now() - (SELECT activity_max_age FROM apps WHERE id = $1)
              AND NOT EXISTS (SELECT 1 FROM channels d
                              WHERE d.id = t.channel_id AND d.app_id = t.app_id AND NOT d.live_activities_enabled)
              AND {audience}
            """
    }

    /// How many targets there are now.
    enum CountInstancesBesideBroadcast: AudienceStatement {
        static let name = "lagw_targets_count_instances_beside_broadcast"
        static let template = """
            SELECT count(*)
            FROM live_activities t
            WHERE t.app_id = $1 AND t.name = $2 AND t.state = 'active'
              AND t.push_token IS NOT NULL AND t.broadcast_channel_id IS DISTINCT FROM $3
              AND t.environment = (SELECT apns_environment FROM apps WHERE id = $1)
              AND t.started_at > now() - (SELECT activity_max_age FROM apps WHERE id = $1)
              AND NOT EXISTS (SELECT 1 FROM channels d
                              WHERE d.id = t.channel_id AND d.app_id = t.app_id AND NOT d.live_activities_enabled)
              AND {audience}
            """
    }

    /// How many targets there are now.
    enum CountStartTokens: AudienceStatement {
        static let name = "lagw_targets_count_start_tokens"
        static let template = """
            SELECT count(*)
            FROM push_to_start_tokens t
            JOIN apps a ON a.id = t.app_id
            WHERE t.app_id = $1 AND t.attributes_type = $2
              AND t.state = 'active' AND t.environment = a.apns_environment
              AND NOT EXISTS (SELECT 1 FROM channels d
                              WHERE d.id = t.channel_id AND d.app_id = t.app_id AND NOT d.live_activities_enabled)
              AND {audience}
            """
    }

    /// The targets counted in the ranges of channel ids that thresholds `$3` bound (`PlanRow`). `width_bucket` counts
    /// the thresholds at or below the id; one equal to the id belongs to the range below.
    enum PlanInstances: AudienceStatement {
        static let name = "lagw_targets_plan_instances"
        static let template = """
            SELECT k - coalesce((channel_id = ($3::uuid[])[k])::int, 0), count(*)
            FROM (SELECT t.channel_id, width_bucket(t.channel_id, $3::uuid[]) AS k
                  FROM live_activities t
                  WHERE t.app_id = $1 AND t.name = $2 AND t.state = 'active'
                    AND t.push_token IS NOT NULL
                    AND t.environment = (SELECT apns_environment FROM apps WHERE id = $1)
                    AND t.started_at > now() - (SELECT activity_max_age FROM apps WHERE id = $1)
                    AND NOT EXISTS (SELECT 1 FROM channels d
                                    WHERE d.id = t.channel_id AND d.app_id = t.app_id AND NOT d.live_activities_enabled)
                    AND {audience}) x
            GROUP BY 1
            """
    }

    /// `PlanInstances`, with thresholds `$4`.
    enum PlanInstancesBesideBroadcast: AudienceStatement {
        static let name = "lagw_targets_plan_instances_beside_broadcast"
        static let template = """
            SELECT k - coalesce((channel_id = ($4::uuid[])[k])::int, 0), count(*)
            FROM (SELECT t.channel_id, width_bucket(t.channel_id, $4::uuid[]) AS k
                  FROM live_activities t
                  WHERE t.app_id = $1 AND t.name = $2 AND t.state = 'active'
                    AND t.push_token IS NOT NULL AND t.broadcast_channel_id IS DISTINCT FROM $3
                    AND t.environment = (SELECT apns_environment FROM apps WHERE id = $1)
                    AND t.started_at > now() - (SELECT activity_max_age FROM apps WHERE id = $1)
                    AND NOT EXISTS (SELECT 1 FROM channels d
                                    WHERE d.id = t.channel_id AND d.app_id = t.app_id AND NOT d.live_activities_enabled)
                    AND {audience}) x
            GROUP BY 1
            """
    }

    /// `PlanInstances`, of start tokens.
    enum PlanStartTokens: AudienceStatement {
        static let name = "lagw_targets_plan_start_tokens"
        static let template = """
            SELECT k - coalesce((channel_id = ($3::uuid[])[k])::int, 0), count(*)
            FROM (SELECT t.channel_id, width_bucket(t.channel_id, $3::uuid[]) AS k
                  FROM push_to_start_tokens t
                  JOIN apps a ON a.id = t.app_id
                  WHERE t.app_id = $1 AND t.attributes_type = $2
                    AND t.state = 'active' AND t.environment = a.apns_environment
                    AND NOT EXISTS (SELECT 1 FROM channels d
                                    WHERE d.id = t.channel_id AND d.app_id = t.app_id AND NOT d.live_activities_enabled)
                    AND {audience}) x
            GROUP BY 1
            """
    }

    /// Every `$3`-th target's channel id in order, and the last one's, with their ranks and the total (`RankRow`).
    enum PlanInstancesByRank: AudienceStatement {
        static let name = "lagw_targets_plan_instances_by_rank"
        static let template = """
            SELECT channel_id, rn, total FROM (
                SELECT t.channel_id, row_number() OVER (ORDER BY t.channel_id) AS rn, count(*) OVER () AS total
                FROM live_activities t
                WHERE t.app_id = $1 AND t.name = $2 AND t.state = 'active'
                  AND t.push_token IS NOT NULL
                  AND t.environment = (SELECT apns_environment FROM apps WHERE id = $1)
                  AND t.started_at > now() - (SELECT activity_max_age FROM apps WHERE id = $1)
                  AND NOT EXISTS (SELECT 1 FROM channels d
                                  WHERE d.id = t.channel_id AND d.app_id = t.app_id AND NOT d.live_activities_enabled)
                  AND {audience}
            ) x
            WHERE rn % $3 = 0 OR rn = total
            ORDER BY rn
            """
    }

    /// `PlanInstancesByRank`, every `$4`-th.
    enum PlanInstancesBesideBroadcastByRank: AudienceStatement {
        static let name = "lagw_targets_plan_instances_beside_broadcast_by_rank"
        static let template = """
            SELECT channel_id, rn, total FROM (
                SELECT t.channel_id, row_number() OVER (ORDER BY t.channel_id) AS rn, count(*) OVER () AS total
                FROM live_activities t
                WHERE t.app_id = $1 AND t.name = $2 AND t.state = 'active'
                  AND t.push_token IS NOT NULL AND t.broadcast_channel_id IS DISTINCT FROM $3
                  AND t.environment = (SELECT apns_environment FROM apps WHERE id = $1)
                  AND t.started_at > now() - (SELECT activity_max_age FROM apps WHERE id = $1)
                  AND NOT EXISTS (SELECT 1 FROM channels d
                                  WHERE d.id = t.channel_id AND d.app_id = t.app_id AND NOT d.live_activities_enabled)
                  AND {audience}
            ) x
            WHERE rn % $4 = 0 OR rn = total
            ORDER BY rn
            """
    }

    /// `PlanInstancesByRank`, of start tokens.
    enum PlanStartTokensByRank: AudienceStatement {
        static let name = "lagw_targets_plan_start_tokens_by_rank"
        static let template = """
            SELECT channel_id, rn, total FROM (
                SELECT t.channel_id, row_number() OVER (ORDER BY t.channel_id) AS rn, count(*) OVER () AS total
                FROM push_to_start_tokens t
                JOIN apps a ON a.id = t.app_id
                WHERE t.app_id = $1 AND t.attributes_type = $2
                  AND t.state = 'active' AND t.environment = a.apns_environment
                  AND NOT EXISTS (SELECT 1 FROM channels d
                                  WHERE d.id = t.channel_id AND d.app_id = t.app_id AND NOT d.live_activities_enabled)
                  AND {audience}
            ) x
            WHERE rn % $3 = 0 OR rn = total
            ORDER BY rn
            """
    }

    /// A row of a count.
    struct CountRow {
        var count: Int

        init(_ row: PostgresRow) throws { self.count = Int(try row.decode(Int64.self)) }
    }

    /// A row of a plan: a range (0 for ids below the first threshold) and its targets.
    struct PlanRow {
        var range: Int
        var count: Int

        init(_ row: PostgresRow) throws {
            let (range, count) = try row.decode((Int32, Int64).self)
            (self.range, self.count) = (Int(range), Int(count))
        }
    }

    /// A row of a plan by rank: a channel id, its rank among the targets, and how many there are.
    struct RankRow {
        var channelID: UUID
        var rank: Int64
        var total: Int64

        init(_ row: PostgresRow) throws {
            (self.channelID, self.rank, self.total) = try row.decode((UUID, Int64, Int64).self)
        }
    }
}
