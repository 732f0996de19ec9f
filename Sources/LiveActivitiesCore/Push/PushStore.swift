import Foundation

/// The answer to `POST /api/push`, stored with the operation so an idempotent repeat returns it unchanged.
public struct PushAccepted: Sendable, Codable, Equatable {
    public var operationID: UUID
    public var pushIDs: [UUID]

    public init(operationID: UUID, pushIDs: [UUID]) {
        self.operationID = operationID
        self.pushIDs = pushIDs
    }

    enum CodingKeys: String, CodingKey {
        case operationID = "operation_id"
        case pushIDs = "push_ids"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(self.operationID.uuidString.lowercased(), forKey: .operationID)
        try c.encode(self.pushIDs.map { $0.uuidString.lowercased() }, forKey: .pushIDs)
    }
}

/// A push as `GET /api/pushes/{id}` reports it.
public struct PushReport: Sendable, Encodable, Equatable {
    public var pushID: UUID
    public var operationID: UUID
    public var event: String
    public var name: String?
    public var state: PushState
    public var failureReason: String?
    public var counts: Counts
    public var failedByReason: [String: Int64]
    public var created: Date
    public var finished: Date?
    /// When the first APNs request of the push went out.
    public var firstRequest: Date?

    public init(
        pushID: UUID, operationID: UUID, event: String, name: String?, state: PushState, failureReason: String?,
        counts: Counts, failedByReason: [String: Int64], created: Date, finished: Date?, firstRequest: Date?
    ) {
        self.pushID = pushID
        self.operationID = operationID
        self.event = event
        self.name = name
        self.state = state
        self.failureReason = failureReason
        self.counts = counts
        self.failedByReason = failedByReason
        self.created = created
        self.finished = finished
        self.firstRequest = firstRequest
    }

    public struct Counts: Sendable, Encodable, Equatable {
        public var targeted, sent, accepted, failed, skipped, canceled: Int64
        /// Targets a newer push to the same activity name reached instead (`PushOrder`).
        public var superseded: Int64

        public init(
            targeted: Int64, sent: Int64, accepted: Int64, failed: Int64, skipped: Int64, canceled: Int64,
            superseded: Int64
        ) {
            self.targeted = targeted
            self.sent = sent
            self.accepted = accepted
            self.failed = failed
            self.skipped = skipped
            self.canceled = canceled
            self.superseded = superseded
        }
    }

    enum CodingKeys: String, CodingKey {
        case pushID = "push_id"
        case operationID = "operation_id"
        case event, name, state, counts, created, finished
        case failureReason = "failure_reason"
        case failedByReason = "failed_by_reason"
        case firstRequest = "first_request"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(self.pushID.uuidString.lowercased(), forKey: .pushID)
        try c.encode(self.operationID.uuidString.lowercased(), forKey: .operationID)
        try c.encode(self.event, forKey: .event)
        try c.encode(self.name, forKey: .name)
        try c.encode(self.state, forKey: .state)
        try c.encode(self.failureReason, forKey: .failureReason)
        try c.encode(self.counts, forKey: .counts)
        try c.encode(self.failedByReason, forKey: .failedByReason)
        try c.encode(self.created, forKey: .created)
        try c.encode(self.finished, forKey: .finished)
        try c.encode(self.firstRequest, forKey: .firstRequest)
    }
}

/// Pushes of one app: every call is scoped by app id.
public protocol PushStore: Sendable {
    /// Stores the pushes and queues their fan-out in one transaction. With an idempotency key already used by this
    /// app, stores nothing and returns the first answer (`replayed` true).
    func submit(appID: Int64, _ pushes: [PushRequest], idempotencyKey: String?, now: Date) async throws
        -> (accepted: PushAccepted, replayed: Bool)
    func report(appID: Int64, pushID: UUID) async throws -> PushReport?
    /// Cancels what has not been handed to APNs; nil when the push is not found. A finished push cancels 0.
    func cancel(appID: Int64, pushID: UUID) async throws -> Int?
}
