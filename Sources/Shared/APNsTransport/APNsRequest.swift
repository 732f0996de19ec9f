import NIOCore

public enum APNsPriority: Int, Sendable, Equatable {
    /// Deliver now (budgeted by Apple per device).
    case immediate = 10
    /// Deliver when power-efficient (not budgeted).
    case powerConsiderate = 5
}

/// One notification to one device. The body is encoded once per push and shared by every device's request.
public struct APNsRequest: Sendable {
    public var deviceToken: String
    /// `<bundle id>.push-type.liveactivity`.
    public var topic: String
    public var priority: APNsPriority
    /// Epoch seconds; 0 = deliver once or not at all. nil: APNs' default.
    public var expiration: Int?
    public var collapseID: String?
    /// Lowercase UUID; APNs assigns one when absent.
    public var apnsID: String?
    public var pushType: String
    public var body: ByteBuffer

    public init(
        deviceToken: String, topic: String, body: ByteBuffer, priority: APNsPriority = .immediate,
        expiration: Int? = nil, collapseID: String? = nil, apnsID: String? = nil, pushType: String = "liveactivity"
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.body = body
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.pushType = pushType
    }

    public static func liveActivityTopic(bundleID: String) -> String { "\(bundleID).push-type.liveactivity" }
}

/// What APNs said about one request.
public enum APNsOutcome: Sendable, Equatable {
    case accepted(apnsID: String?)
    /// `timestamp` is set with 410: when APNs learned the token was no longer valid (ms since epoch).
    case rejected(status: Int, reason: APNsReason, timestamp: Int64?)

    public var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }
}
