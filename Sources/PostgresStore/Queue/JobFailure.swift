import Foundation
import LiveActivitiesCore

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
