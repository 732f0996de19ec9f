import PostgresNIO

/// The statements of the registry's maintenance jobs (`RegistryPurge`, `RetentionPurge`). Each deletes or expires at
/// most `$1` rows and answers how many, so that its job repeats it until a batch comes back short. `RegistryPurge`'s
/// go app by app (`$2`, `AppsWithWork`).
enum RegistryMaintenanceStatements {
    static let all: [any NamedStatement.Type] = [Self.own, RetentionPurge.batches].flatMap { $0 }

    private static let own: [any NamedStatement.Type] = [
        ExpireActivities.self, DeleteOldActivities.self, DeleteOldPushToStartTokens.self, SetLockTimeout.self,
        RotatePartitions.self, ScrubForgotten.self,
    ]

    /// Instances of app `$2` past its maximum age become `expired`.
    enum ExpireActivities: NamedStatement {
        static let name = "lagw_registry_expire_v2"
        static let sql = """
            WITH done AS (
                UPDATE live_activities SET state = 'expired', ended_reason = 'max_age', ended_at = now()
                WHERE app_id = $2 AND id IN (
                    SELECT la.id FROM live_activities la JOIN apps a ON a.id = la.app_id
                    WHERE la.app_id = $2 AND la.state = 'active' AND la.started_at <= now() - a.activity_max_age
                    LIMIT $1)
                RETURNING 1)
            SELECT count(*) FROM done
            """
    }

    /// Ended, expired and invalid instances of app `$2` older than its retention are deleted.
    enum DeleteOldActivities: NamedStatement {
        static let name = "lagw_registry_delete_old_activities_v2"
        static let sql = """
            WITH done AS (
                DELETE FROM live_activities WHERE app_id = $2 AND id IN (
                    SELECT la.id FROM live_activities la JOIN apps a ON a.id = la.app_id
                    WHERE la.app_id = $2 AND la.state <> 'active'
                      AND coalesce(la.ended_at, la.invalidated_at) <= now() - a.registry_retention
                    LIMIT $1)
                RETURNING 1)
            SELECT count(*) FROM done
            """
    }

    /// Invalid push-to-start tokens of app `$2` older than its retention are deleted.
    enum DeleteOldPushToStartTokens: NamedStatement {
        static let name = "lagw_registry_delete_old_push_to_start_v2"
        static let sql = """
            WITH done AS (
                DELETE FROM push_to_start_tokens WHERE app_id = $2 AND (channel_id, attributes_type) IN (
                    SELECT p.channel_id, p.attributes_type FROM push_to_start_tokens p JOIN apps a ON a.id = p.app_id
                    WHERE p.app_id = $2 AND p.state = 'invalid' AND p.invalidated_at <= now() - a.registry_retention
                    LIMIT $1)
                RETURNING 1)
            SELECT count(*) FROM done
            """
    }

    /// `SET LOCAL lock_timeout` to `$1` (milliseconds, as text), for the rest of the transaction.
    enum SetLockTimeout: NamedStatement {
        static let name = "lagw_set_local_lock_timeout"
        static let sql = "SELECT set_config('lock_timeout', $1, true)"
    }

    /// The delivery history's weekly partitions (sql/0022): the next `$1` weeks made, and the weeks wholly older than
    /// the longest retention of any app dropped. Answers (partitions made, weeks dropped).
    enum RotatePartitions: NamedStatement {
        static let name = "lagw_history_partitions_rotate"
        static let sql = """
            SELECT history_partitions_ensure(now(), $1::int4)::int8,
                   history_partitions_drop(
                       now() - (SELECT coalesce(max(registry_retention), interval '30 days') FROM apps))::int8
            """

        struct Row {
            var made: Int
            var dropped: Int

            init(_ row: PostgresRow) throws {
                let (made, dropped) = try row.decode((Int64, Int64).self)
                (self.made, self.dropped) = (Int(made), Int(dropped))
            }
        }
    }

    /// The ids of channels forgotten so far, replaced by `$1` (the nil UUID) in their app's stored pushes and
    /// schedules, one pass per app. Answers how many channels.
    enum ScrubForgotten: NamedStatement {
        static let name = "lagw_retention_scrub_forgotten"
        static let sql = """
            WITH gone AS (DELETE FROM forgotten_channels RETURNING app_id, channel_id::text AS id),
            apps AS (SELECT app_id, '(' || string_agg(id, '|') || ')' AS pattern, count(*) AS n
                     FROM gone GROUP BY app_id),
            p AS (
                UPDATE pushes p SET audience = regexp_replace(p.audience::text, a.pattern, $1, 'gi')::jsonb,
                                    request = regexp_replace(p.request::text, a.pattern, $1, 'gi')::jsonb
                FROM apps a
                WHERE p.app_id = a.app_id AND (p.audience::text ~* a.pattern OR p.request::text ~* a.pattern)
            ),
            s AS (
                UPDATE schedules s SET push = regexp_replace(s.push::text, a.pattern, $1, 'gi')::jsonb
                FROM apps a WHERE s.app_id = a.app_id AND s.push::text ~* a.pattern
            )
            SELECT coalesce(sum(n), 0)::int8 FROM apps
            """
    }
}
