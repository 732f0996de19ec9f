import Foundation
import LiveActivitiesCore
import PostgresDatabase

/// The queue as the runner sees it. `PostgresJobQueue` is the implementation.
public protocol JobQueue: Sendable {
    /// Returns the ids of the jobs inserted (a job whose `dedupeKey` is already live is not).
    @discardableResult
    func enqueue(_ jobs: [JobRequest]) async throws -> [Int64]
    /// Claims up to `limit` due jobs for `owner`, interleaving apps, each leased for `lease`, none of the kinds in
    /// `excludingKinds`.
    func claim(limit: Int, owner: String, lease: Duration, excludingKinds: [JobKind]) async throws -> [ClaimedJob]
    /// As `claim`, with the apps the claimer is already busy with (`busyApps`) taking their turn after the others,
    /// and none of its own jobs still running (`inFlight`), even past their lease.
    func claim(
        limit: Int, owner: String, lease: Duration, excludingKinds: [JobKind], busyApps: [Int64], inFlight: [Int64]
    ) async throws -> [ClaimedJob]
    /// Extends the lease of the jobs `owner` still holds; returns those ids.
    @discardableResult
    func extendLease(ids: [Int64], owner: String, lease: Duration) async throws -> [Int64]
    func complete(ids: [Int64], owner: String) async throws
    /// Requeues each failure after its delay, or dead-letters it when out of attempts or `retryAfter` is nil.
    @discardableResult
    func fail(_ failures: [JobFailure], owner: String) async throws -> [Int64: JobFailureOutcome]
    /// When the next job of a kind not in `excludingKinds` becomes due (nil: none queued).
    func nextDueDate(excludingKinds: [JobKind]) async throws -> Date?
    /// Dead-letters jobs whose lease expired on their last attempt; returns how many.
    @discardableResult
    func buryAbandoned() async throws -> Int
}

extension JobQueue {
    /// A queue that knows no preference between apps, and lets its claimers' leases alone fence their jobs.
    public func claim(
        limit: Int, owner: String, lease: Duration, excludingKinds: [JobKind], busyApps: [Int64], inFlight: [Int64]
    ) async throws -> [ClaimedJob] {
        try await self.claim(limit: limit, owner: owner, lease: lease, excludingKinds: excludingKinds)
    }

    /// Claims due jobs of any kind.
    public func claim(limit: Int, owner: String, lease: Duration) async throws -> [ClaimedJob] {
        try await self.claim(limit: limit, owner: owner, lease: lease, excludingKinds: [])
    }
}
