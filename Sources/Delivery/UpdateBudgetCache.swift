import PostgresStore

/// Each app's update budgets (`priority_10_per_hour` by attributes type), cached for a while: most apps have none,
/// and a push asks once, not per chunk. A policy change is picked up within `ttl`.
actor UpdateBudgetCache {
    private let store: PostgresUpdateBudgets
    private let ttl: Duration
    private var entries: [Int64: (budgets: [String: Int], expires: ContinuousClock.Instant)] = [:]

    init(database: Database, ttl: Duration = .seconds(30)) {
        self.store = PostgresUpdateBudgets(database: database)
        self.ttl = ttl
    }

    func budgets(appID: Int64) async throws -> [String: Int] {
        let now = ContinuousClock.now
        if let cached = self.entries[appID], cached.expires > now { return cached.budgets }
        let budgets = try await self.store.budgets(appID: appID)
        self.entries[appID] = (budgets, now + self.ttl)
        return budgets
    }
}

extension PushForDelivery {
    /// A priority-10 update learns its app's update budgets (the select then decides each instance's priority).
    mutating func applyUpdateBudgets(from cache: UpdateBudgetCache) async throws {
        guard self.targets.event == .update, self.priority == 10 else { return }
        self.targets.updateBudgets = try await cache.budgets(appID: self.appID)
    }
}
