import PostgresNIO

/// The statements of an app's lifecycle policies (`ActivityPolicies.apply`, `PostgresUpdateBudgets`).
enum PolicyStatements {
    static let all: [any NamedStatement.Type] = [
        UpdateApp.self, DeleteIdlePolicies.self, DeleteUpdateBudgets.self, DeleteRenewPolicies.self,
        InsertRenewPolicies.self, InsertUpdateBudgets.self, InsertIdlePolicies.self, UpdateBudgets.self,
    ]

    /// Sets the policies held on app `$17`'s row (by its key); NULL keeps a value. Seconds: `$1` activity max age,
    /// `$2` registry retention, `$3` broadcast idle, `$5` start confirm window. `$4` broadcast delete unknown,
    /// `$6` starts per channel per hour, `$7` suspect after starts, `$8` skip suspect tokens, `$9` device tag groups,
    /// `$10` device named user; limits: `$11` server and `$12` device requests per second, `$13` pending updates per
    /// activity, `$14` pending updates, `$15` schedules, `$16` tags per channel; `$18` contract policy. Returns the app's id.
    enum UpdateApp: NamedStatement {
        static let name = "lagw_policies_update_app_v2"
        static let sql = """
            UPDATE apps SET
                activity_max_age = coalesce(make_interval(secs => $1), activity_max_age),
                registry_retention = coalesce(make_interval(secs => $2), registry_retention),
                broadcast_idle_after = coalesce(make_interval(secs => $3), broadcast_idle_after),
                broadcast_delete_unknown = coalesce($4, broadcast_delete_unknown),
                start_confirm_window = coalesce(make_interval(secs => $5), start_confirm_window),
                starts_per_channel_per_hour = coalesce($6, starts_per_channel_per_hour),
                suspect_after_starts = coalesce($7, suspect_after_starts),
                skip_suspect_tokens = coalesce($8, skip_suspect_tokens),
                device_tag_groups = coalesce($9::text[], device_tag_groups),
                device_named_user = coalesce($10, device_named_user),
                server_requests_per_second = coalesce($11, server_requests_per_second),
                device_requests_per_second = coalesce($12, device_requests_per_second),
                max_pending_updates_per_activity = coalesce($13, max_pending_updates_per_activity),
                max_pending_updates = coalesce($14, max_pending_updates),
                max_schedules = coalesce($15, max_schedules),
                max_tags_per_channel = coalesce($16, max_tags_per_channel),
                contract_policy = coalesce($18, contract_policy),
                updated_at = now()
            WHERE app_key = $17 RETURNING id
            """
    }

    /// Deletes app `$1`'s idle-end policies.
    enum DeleteIdlePolicies: NamedStatement {
        static let name = "lagw_policies_delete_idle"
        static let sql = "DELETE FROM activity_policies WHERE app_id = $1"
    }

    /// Deletes app `$1`'s update budgets.
    enum DeleteUpdateBudgets: NamedStatement {
        static let name = "lagw_policies_delete_update_budgets"
        static let sql = "DELETE FROM update_budgets WHERE app_id = $1"
    }

    /// Deletes app `$1`'s renew policies.
    enum DeleteRenewPolicies: NamedStatement {
        static let name = "lagw_policies_delete_renew"
        static let sql = "DELETE FROM renew_policies WHERE app_id = $1"
    }

    /// App `$1`'s renew policies, one per element: attributes types `$2` ('' for the default), after seconds `$3`,
    /// alert titles `$4` and bodies `$5`.
    enum InsertRenewPolicies: NamedStatement {
        static let name = "lagw_policies_insert_renew"
        static let sql = """
            INSERT INTO renew_policies (app_id, attributes_type, after_seconds, alert_title, alert_body)
            SELECT $1, t, n, at, ab
            FROM unnest($2::text[], $3::int4[], $4::text[], $5::text[]) AS x(t, n, at, ab)
            """
    }

    /// App `$1`'s update budgets: attributes types `$2` ('' for the default), priority-10 updates per hour `$3`.
    enum InsertUpdateBudgets: NamedStatement {
        static let name = "lagw_policies_insert_update_budgets"
        static let sql = """
            INSERT INTO update_budgets (app_id, attributes_type, priority_10_per_hour)
            SELECT $1, t, n
            FROM unnest($2::text[], $3::int4[]) AS x(t, n)
            """
    }

    /// App `$1`'s idle-end policies: attributes types `$2` ('' for the default), idle seconds `$3`, dismissal
    /// seconds `$4`.
    enum InsertIdlePolicies: NamedStatement {
        static let name = "lagw_policies_insert_idle"
        static let sql = """
            INSERT INTO activity_policies (app_id, attributes_type, idle_end_seconds, dismissal_seconds)
            SELECT $1, t, i, d
            FROM unnest($2::text[], $3::int4[], $4::int4[]) AS x(t, i, d)
            """
    }

    /// App `$1`'s update budgets.
    enum UpdateBudgets: NamedStatement {
        static let name = "lagw_policies_update_budgets"
        static let sql = "SELECT attributes_type, priority_10_per_hour FROM update_budgets WHERE app_id = $1"

        struct Row {
            /// '' for the app's default.
            var attributesType: String
            var priority10PerHour: Int

            init(_ row: PostgresRow) throws {
                let (type, limit) = try row.decode((String, Int32).self)
                (self.attributesType, self.priority10PerHour) = (type, Int(limit))
            }
        }
    }
}
