import Foundation
import LiveActivitiesCore

/// Work to put on the queue.
public struct JobRequest: Sendable, Equatable {
    public var kind: JobKind
    /// The tenant the job works for; 0 for system work. Claims are fair across apps.
    public var appID: Int64
    /// A JSON document.
    public var payload: String
    public var runAt: Date?
    public var priority: Int16
    public var maxAttempts: Int32
    /// Jobs that must exist once carry a key: enqueueing a second live job with the same key does nothing.
    public var dedupeKey: String?

    public init(
        kind: JobKind,
        appID: Int64,
        payload: String = "{}",
        runAt: Date? = nil,
        priority: Int16 = 0,
        maxAttempts: Int32 = 8,
        dedupeKey: String? = nil
    ) {
        self.dedupeKey = dedupeKey
        self.kind = kind
        self.appID = appID
        self.payload = payload
        self.runAt = runAt
        self.priority = priority
        self.maxAttempts = maxAttempts
    }
}

/// A job this worker holds a lease on.
public struct ClaimedJob: Sendable, Equatable {
    public var id: Int64
    public var kind: JobKind
    public var appID: Int64
    public var payload: String
    /// 1 on the first run.
    public var attempt: Int
    public var maxAttempts: Int

    public init(id: Int64, kind: JobKind, appID: Int64, payload: String, attempt: Int, maxAttempts: Int) {
        self.id = id
        self.kind = kind
        self.appID = appID
        self.payload = payload
        self.attempt = attempt
        self.maxAttempts = maxAttempts
    }
}

/// A failed run: when to try again (nil: never) and what went wrong.
public struct JobFailure: Sendable, Equatable {
    public var jobID: Int64
    public var retryAfter: Duration?
    public var error: String

    public init(jobID: Int64, retryAfter: Duration?, error: String) {
        self.jobID = jobID
        self.retryAfter = retryAfter
        self.error = error
    }
}

public enum JobFailureOutcome: String, Sendable {
    case retried, dead
}

/// The queue as the runner sees it. `PostgresJobQueue` is the implementation.
public protocol JobQueue: Sendable {
    /// Returns the ids of the jobs inserted (a job whose `dedupeKey` is already live is not).
    @discardableResult
    func enqueue(_ jobs: [JobRequest]) async throws -> [Int64]
    /// Claims up to `limit` due jobs for `owner`, interleaving apps, each leased for `lease`, none of the kinds in
    /// `excludingKinds`.
    func claim(limit: Int, owner: String, lease: Duration, excludingKinds: [JobKind]) async throws -> [ClaimedJob]
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
    /// Claims due jobs of any kind.
    public func claim(limit: Int, owner: String, lease: Duration) async throws -> [ClaimedJob] {
        try await self.claim(limit: limit, owner: owner, lease: lease, excludingKinds: [])
    }
}
