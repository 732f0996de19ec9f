import Foundation
import LiveActivitiesCore
import PostgresDatabase

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
