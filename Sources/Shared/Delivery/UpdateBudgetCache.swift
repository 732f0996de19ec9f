import PostgresStore
import Synchronization

/// Each app's update budgets (`priority_10_per_hour` by attributes type), cached for a while: most apps have none,
/// and a push asks once, not per chunk. A policy change is picked up within `ttl`.
///
/// A lock, not an actor: a hit is a dictionary lookup without a hop. As an actor it was shared by the fan-out's
/// batches on the global pool and the express lane's single updates, which then waited, at times 7 ms, for it to
/// be scheduled on a saturated machine. Two misses at once both read; the later write wins, with the same value.
final class UpdateBudgetCache: Sendable {
    private let store: PostgresUpdateBudgets
    private let ttl: Duration
    private let entries = Mutex<[Int64: (budgets: [String: Int], expires: ContinuousClock.Instant)]>([:])

    init(database: Database, ttl: Duration = .seconds(30)) {
        self.store = PostgresUpdateBudgets(database: database)
        self.ttl = ttl
    }

    func budgets(appID: Int64) async throws -> [String: Int] {
        let now = ContinuousClock.now
        if let cached = self.entries.withLock({ $0[appID] }), cached.expires > now { return cached.budgets }
        let budgets = try await self.store.budgets(appID: appID)
        self.entries.withLock { $0[appID] = (budgets, now + self.ttl) }
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
