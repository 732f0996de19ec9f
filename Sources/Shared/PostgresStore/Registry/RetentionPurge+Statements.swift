import PostgresNIO

/// `RetentionPurge`'s batches: each deletes up to `$1` rows of app `$2` past its retention, through the table's
/// (app_id, time) index, and answers how many. The job runs them app by app (`AppsWithWork`).
///
/// A partitioned table's rows (sql/0022) older than the longest retention of any app (the horizon), in the week that
/// holds it, are left to that week's drop (at most a week later) rather than deleted one by one; older rows (a week
/// held back by an unfinished push, the default partitions) and those of apps with a shorter retention are deleted.
/// The horizon: `now() - (SELECT coalesce(max(registry_retention), interval '30 days') FROM apps)`.
extension RetentionPurge {
    /// In the order they run: push operations first (their start attempts go with them).
    static let batches: [any NamedStatement.Type] = [
        DeleteOldOperations.self, DeleteOldSchedules.self, DeleteOldLaunches.self, DeleteOldRenewals.self,
        DeleteOldDeviceOperations.self,
    ]

    /// Push operations whose pushes all finished (their pushes, batches, failures, counts and stamps cascade; their
    /// start attempts go first).
    enum DeleteOldOperations: NamedStatement {
        static let name = "lagw_retention_operations_v2"
        static let sql = """
            WITH old AS (
                SELECT o.id FROM push_operations o JOIN apps a ON a.id = o.app_id
                WHERE o.app_id = $2
                  AND (o.created_at < least(now() - a.registry_retention, history_week(
                           now() - (SELECT coalesce(max(registry_retention), interval '30 days') FROM apps)))
                       OR (o.created_at >= now() - (SELECT coalesce(max(registry_retention), interval '30 days')
                                                    FROM apps)
                           AND o.created_at < now() - a.registry_retention))
                  AND NOT EXISTS (SELECT 1 FROM pushes p WHERE p.operation_id = o.id AND p.app_id = $2
                                  AND p.state IN ('queued', 'sending'))
                LIMIT $1
            ),
            attempts AS (
                DELETE FROM start_attempts s USING pushes p
                WHERE p.operation_id IN (SELECT id FROM old) AND p.app_id = $2 AND s.push_id = p.id
                  AND s.app_id = $2
            ),
            done AS (DELETE FROM push_operations WHERE app_id = $2 AND id IN (SELECT id FROM old) RETURNING 1)
            SELECT count(*) FROM done
            """
    }

    /// Finished schedules.
    enum DeleteOldSchedules: NamedStatement {
        static let name = "lagw_retention_schedules_v2"
        static let sql = """
            WITH done AS (
                DELETE FROM schedules WHERE app_id = $2 AND id IN (
                    SELECT t.id FROM schedules t JOIN apps a ON a.id = t.app_id
                    WHERE t.app_id = $2 AND t.state <> 'pending' AND t.updated_at < now() - a.registry_retention
                    LIMIT $1)
                RETURNING 1)
            SELECT count(*) FROM done
            """
    }

    /// Launches (partitioned).
    enum DeleteOldLaunches: NamedStatement {
        static let name = "lagw_retention_launches_v2"
        static let sql = """
            WITH done AS (
                DELETE FROM launches WHERE app_id = $2 AND id IN (
                    SELECT t.id FROM launches t JOIN apps a ON a.id = t.app_id
                    WHERE t.app_id = $2
                      AND (t.launched_at < least(now() - a.registry_retention, history_week(
                               now() - (SELECT coalesce(max(registry_retention), interval '30 days') FROM apps)))
                           OR (t.launched_at >= now() - (SELECT coalesce(max(registry_retention),
                                                                  interval '30 days') FROM apps)
                               AND t.launched_at < now() - a.registry_retention))
                    LIMIT $1)
                RETURNING 1)
            SELECT count(*) FROM done
            """
    }

    /// Renewals.
    enum DeleteOldRenewals: NamedStatement {
        static let name = "lagw_retention_renewals_v2"
        static let sql = """
            WITH done AS (
                DELETE FROM renewals WHERE app_id = $2 AND id IN (
                    SELECT t.id FROM renewals t JOIN apps a ON a.id = t.app_id
                    WHERE t.app_id = $2 AND t.created_at < now() - a.registry_retention
                    LIMIT $1)
                RETURNING 1)
            SELECT count(*) FROM done
            """
    }

    /// Stored answers of the device calls that create (`Idempotency-Key`), aged out like push operations.
    enum DeleteOldDeviceOperations: NamedStatement {
        static let name = "lagw_retention_device_operations_v2"
        static let sql = """
            WITH done AS (
                DELETE FROM device_operations WHERE app_id = $2 AND id IN (
                    SELECT t.id FROM device_operations t JOIN apps a ON a.id = t.app_id
                    WHERE t.app_id = $2 AND t.created_at < now() - a.registry_retention
                    LIMIT $1)
                RETURNING 1)
            SELECT count(*) FROM done
            """
    }
}
