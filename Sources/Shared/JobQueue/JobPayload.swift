import Foundation
import PostgresDatabase

/// The contract of one kind of job: its payload as a Codable type, encoded by whoever enqueues it and decoded by its
/// handler, both through `JobRequest(_:appID:...)` and `ClaimedJob.payload(as:)`, never written by hand.
public protocol JobPayload: Codable, Sendable {
    static var kind: JobKind { get }
}

extension JobRequest {
    /// A job of `Payload.kind` carrying `payload`.
    public init<Payload: JobPayload>(
        _ payload: Payload, appID: Int64, runAt: Date? = nil, priority: Int16 = 0, maxAttempts: Int32 = 8,
        dedupeKey: String? = nil
    ) throws {
        self.init(
            kind: Payload.kind, appID: appID,
            payload: String(decoding: try JSONEncoder().encode(payload), as: UTF8.self),
            runAt: runAt, priority: priority, maxAttempts: maxAttempts, dedupeKey: dedupeKey)
    }
}

extension ClaimedJob {
    /// The job's payload as its kind's contract; a payload that does not decode can never run (`JobError.permanent`).
    public func payload<Payload: JobPayload>(as type: Payload.Type) throws -> Payload {
        do {
            return try JSONDecoder().decode(Payload.self, from: Data(self.payload.utf8))
        } catch {
            throw JobError.permanent("the payload of a \(self.kind) job is not a \(Payload.self)")
        }
    }
}
