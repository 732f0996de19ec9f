import Logging
import PostgresNIO

/// The update budgets of an app (`update_budgets`), as `PUT /admin/apps/{key}/policies` sets them.
public struct PostgresUpdateBudgets: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    /// Priority-10 updates per instance per hour, by attributes type ("" for the app's default).
    public func budgets(appID: Int64) async throws -> [String: Int] {
        let rows = try await self.database.client.query(
            PolicyStatements.UpdateBudgets.query(appID), logger: self.database.logger)
        var budgets: [String: Int] = [:]
        for row in try rows.elements.map(PolicyStatements.UpdateBudgets.Row.init) {
            budgets[row.attributesType] = row.priority10PerHour
        }
        return budgets
    }
}
