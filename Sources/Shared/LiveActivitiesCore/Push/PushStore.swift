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
    /// How it went out: `tokens`, `broadcast` or `both` (`DeliveryRoute`).
    public var delivery: String = "tokens"
    /// The broadcast request, for `broadcast` and `both`.
    public var broadcast: Broadcast?
    /// For a start: what became of its push-to-start tokens.
    public var starts: Starts?
    /// Priority-10 updates sent at priority 5 under the app's update budget (present when any were).
    public var downgraded: Int64?
    /// For a start, once an instance it created has ended: their lifetimes.
    public var lifetimeSeconds: Lifetime?

    /// Seconds from the track call to the device's end (else to the gateway's) of a start's ended instances.
    public struct Lifetime: Sendable, Encodable, Equatable {
        public var median, p90, max: Double

        public init(median: Double, p90: Double, max: Double) {
            self.median = median
            self.p90 = p90
            self.max = max
        }
    }

    /// A start's outcomes: held before sending (`already_active`, `start_budget`), and of the starts APNs accepted,
    /// how many the channel registered within the app's window (`started`), did not (`not_started`, once the window
    /// is over), or may still (`pending`). Of the started instances that have ended since: how many (`ended`), how
    /// many by the device's report (`ended_on_device`), how many the device reported dismissed (`dismissed`). All
    /// whole numbers (their lifetimes are `PushReport.lifetimeSeconds`).
    public struct Starts: Sendable, Encodable, Equatable {
        public var alreadyActive, startBudget, suspectToken, started, notStarted, pending: Int64
        public var ended: Int64 = 0
        public var endedOnDevice: Int64 = 0
        public var dismissed: Int64 = 0

        public init(
            alreadyActive: Int64, startBudget: Int64, suspectToken: Int64, started: Int64, notStarted: Int64,
            pending: Int64
        ) {
            self.alreadyActive = alreadyActive
            self.startBudget = startBudget
            self.suspectToken = suspectToken
            self.started = started
            self.notStarted = notStarted
            self.pending = pending
        }

        enum CodingKeys: String, CodingKey {
            case started, pending, ended, dismissed
            case alreadyActive = "already_active"
            case startBudget = "start_budget"
            case suspectToken = "suspect_token"
            case notStarted = "not_started"
            case endedOnDevice = "ended_on_device"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(self.alreadyActive, forKey: .alreadyActive)
            try c.encode(self.startBudget, forKey: .startBudget)
            try c.encode(self.suspectToken, forKey: .suspectToken)
            try c.encode(self.started, forKey: .started)
            try c.encode(self.notStarted, forKey: .notStarted)
            try c.encode(self.pending, forKey: .pending)
            try c.encode(self.ended, forKey: .ended)
            try c.encode(self.endedOnDevice, forKey: .endedOnDevice)
            try c.encode(self.dismissed, forKey: .dismissed)
        }
    }

    /// A push's one broadcast request and Apple's answer (status and reason nil until it is answered).
    public struct Broadcast: Sendable, Encodable, Equatable {
        public var channelID: String
        public var status: Int?
        public var reason: String?
        public var apnsUniqueID: String?
        public var sent: Date?

        public init(channelID: String, status: Int?, reason: String?, apnsUniqueID: String?, sent: Date?) {
            self.channelID = channelID
            self.status = status
            self.reason = reason
            self.apnsUniqueID = apnsUniqueID
            self.sent = sent
        }

        enum CodingKeys: String, CodingKey {
            case status, reason, sent
            case channelID = "channel_id"
            case apnsUniqueID = "apns_unique_id"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(self.channelID, forKey: .channelID)
            try c.encode(self.status, forKey: .status)
            try c.encode(self.reason, forKey: .reason)
            try c.encode(self.apnsUniqueID, forKey: .apnsUniqueID)
            try c.encode(self.sent, forKey: .sent)
        }
    }

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
        case delivery, broadcast, starts, downgraded
        case lifetimeSeconds = "lifetime_seconds"
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
        try c.encode(self.delivery, forKey: .delivery)
        try c.encodeIfPresent(self.broadcast, forKey: .broadcast)
        try c.encodeIfPresent(self.starts, forKey: .starts)
        try c.encodeIfPresent(self.downgraded, forKey: .downgraded)
        try c.encodeIfPresent(self.lifetimeSeconds, forKey: .lifetimeSeconds)
    }
}

/// Pushes of one app: every call is scoped by app id.
public protocol PushStore: Sendable {
    /// Stores the pushes and queues their fan-out in one transaction. With an idempotency key already used by this
    /// app, stores nothing and returns the first answer (`replayed` true).
    func submit(appID: Int64, _ pushes: [PushRequest], idempotencyKey: String?, now: Date) async throws
        -> (accepted: PushAccepted, replayed: Bool)
    /// Checks what `submit` would check, the rules that depend on the names' broadcast channels included; stores nothing.
    func validate(appID: Int64, _ pushes: [PushRequest], now: Date) async throws
    func report(appID: Int64, pushID: UUID) async throws -> PushReport?
    /// Cancels what has not been handed to APNs; nil when the push is not found. A finished push cancels 0.
    func cancel(appID: Int64, pushID: UUID) async throws -> Int?
}
