import Foundation
import LiveActivitiesCore
import PostgresDatabase

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
