import Foundation
import LiveActivitiesCore
import PostgresDatabase

/// A failed run: when to try again (nil: never) and what went wrong.
public struct JobFailure: Sendable, Equatable {
    public var jobID: Int64
    public var retryAfter: Duration?
    public var error: String
    /// The attempt does not count (an interruption by shutdown): the job is queued again, never dead-lettered.
    public var givesBackAttempt: Bool

    public init(jobID: Int64, retryAfter: Duration?, error: String, givesBackAttempt: Bool = false) {
        self.jobID = jobID
        self.retryAfter = retryAfter
        self.error = error
        self.givesBackAttempt = givesBackAttempt
    }
}

public enum JobFailureOutcome: String, Sendable {
    case retried, dead
}
