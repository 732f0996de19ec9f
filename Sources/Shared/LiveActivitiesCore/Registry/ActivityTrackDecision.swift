/// What tracking an activity under a name does, decided from what is stored. Pure: the store reads, asks, writes.
public enum ActivityTrackDecision: Equatable, Sendable {
    /// No current instance under the name: a new one starts.
    case start
    /// The same activity, token and attributes type, and active: nothing to write (a retry).
    case unchanged
    /// The same activity with a new token, a new attributes type, or after an invalidation: it is updated and
    /// active again; the old token is never sent to again.
    case rotate(instanceID: Int64)
    /// Another activity holds the name: it ends (`replaced`) and this one starts.
    case replace(instanceID: Int64)
    /// This activity already ended (a late retry, or iOS reusing an id): refused, nothing changes.
    case refuseEnded

    /// The instance currently tracked under the name (active or invalid).
    public struct Current: Equatable, Sendable {
        public var id: Int64
        public var systemActivityID: String
        /// "" when the instance has no token (reached through its broadcast channel).
        public var token: String
        public var attributesType: String
        public var isActive: Bool
        public var broadcastChannelID: String

        public init(
            id: Int64, systemActivityID: String, token: String, attributesType: String, isActive: Bool,
            broadcastChannelID: String = ""
        ) {
            self.id = id
            self.systemActivityID = systemActivityID
            self.token = token
            self.broadcastChannelID = broadcastChannelID
            self.attributesType = attributesType
            self.isActive = isActive
        }
    }

    /// - Parameter requestedHasEnded: an ended instance of this channel has the requested system activity id.
    public static func decide(
        current: Current?, requested: ActivityTracking, requestedHasEnded: Bool
    ) -> ActivityTrackDecision {
        guard let current else { return requestedHasEnded ? .refuseEnded : .start }
        guard current.systemActivityID == requested.systemActivityID else {
            return requestedHasEnded ? .refuseEnded : .replace(instanceID: current.id)
        }
        if current.token == requested.token && current.attributesType == requested.attributesType && current.isActive
            && current.broadcastChannelID == requested.broadcastChannelID
        {
            return .unchanged
        }
        return .rotate(instanceID: current.id)
    }

    /// The word the API answers with.
    public var result: String {
        switch self {
        case .start: "started"
        case .unchanged: "unchanged"
        case .rotate: "rotated"
        case .replace: "replaced"
        case .refuseEnded: "refused"
        }
    }
}
