import Foundation
import PostgresDatabase
import PostgresNIO

/// The apps a recurring job has work for, read before it does the work one app at a time. Each job's statements name
/// the app (`app_id = $n`), so that on Citus (docs/scaling.md) each runs on the app's shard: Citus refuses
/// `FOR UPDATE` over every shard ("could not run distributed query with FOR UPDATE/SHARE commands") and joins between
/// tables that are not by their distribution column. These reads take no lock; on one PostgreSQL each is one index or
/// small-table scan, and a job with no app to serve runs nothing else.
enum AppsWithWork {
    static let all: [any NamedStatement.Type] = [
        WithIdleEndPolicy.self, WithRenewPolicy.self, WithPolicies.self, WithPendingStamps.self,
        WithUnsettledStarts.self, Every.self,
    ]

    /// Apps with an idle-end policy (`IdleActivityEnder`).
    enum WithIdleEndPolicy: NamedStatement {
        static let name = "lagw_apps_with_idle_end_policy"
        static let sql = "SELECT DISTINCT app_id FROM activity_policies WHERE idle_end_seconds IS NOT NULL ORDER BY 1"
    }

    /// Apps with a renewal policy (`ActivityRenewer`).
    enum WithRenewPolicy: NamedStatement {
        static let name = "lagw_apps_with_renew_policy"
        static let sql = "SELECT DISTINCT app_id FROM renew_policies ORDER BY 1"
    }

    /// Apps with either (their pending stamps are folded before those jobs read the instances).
    enum WithPolicies: NamedStatement {
        static let name = "lagw_apps_with_policies"
        static let sql = """
            SELECT app_id FROM activity_policies WHERE idle_end_seconds IS NOT NULL
            UNION SELECT app_id FROM renew_policies ORDER BY 1
            """
    }

    /// Apps with pushes whose delivery stamps are pending (`DeliveryLedger.foldPendingStamps`).
    enum WithPendingStamps: NamedStatement {
        static let name = "lagw_apps_with_pending_stamps"
        static let sql = "SELECT DISTINCT app_id FROM delivery_stamp_pushes ORDER BY 1"
    }

    /// Apps with finished start pushes not settled yet (`StartSettlement`).
    enum WithUnsettledStarts: NamedStatement {
        static let name = "lagw_apps_with_unsettled_starts"
        static let sql = """
            SELECT DISTINCT app_id FROM pushes
            WHERE event = 'start' AND starts_settled_at IS NULL AND finished_at IS NOT NULL ORDER BY 1
            """
    }

    /// Every app (`RegistryPurge`).
    enum Every: NamedStatement {
        static let name = "lagw_apps_every"
        static let sql = "SELECT id FROM apps ORDER BY 1"
    }

    /// The ids `statement` answers.
    static func ids(_ statement: any NamedStatement.Type, in database: Database) async throws -> [Int64] {
        var ids: [Int64] = []
        let rows = try await database.client.query(try statement.query(), logger: database.logger)
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        return ids
    }
}
