import Logging
import PostgresNIO

/// The update budgets of an app (`update_budgets`), as `PUT /admin/apps/{key}/policies` sets them.
public struct PostgresUpdateBudgets: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    /// Priority-10 updates per instance per hour, by attributes type ("" for the app's default).
    public func budgets(appID: Int64) async throws -> [String: Int] {
        let rows = try await self.database.client.query(
            "SELECT attributes_type, priority_10_per_hour FROM update_budgets WHERE app_id = \(appID)",
            logger: self.database.logger)
        var budgets: [String: Int] = [:]
        for try await (type, limit) in rows.decode((String, Int32).self) { budgets[type] = Int(limit) }
        return budgets
    }
}
