/// A target APNs did not take, as the delivery ledger records it (`push_failures`).
public struct DeliveryFailure: Sendable, Equatable {
    public var status: Int?
    /// The APNs reason as APNs spells it, or `transport:<error>`, or `stopped`.
    public var reason: String
    /// The token is dead (Unregistered, ExpiredToken, BadDeviceToken): never send to it again.
    public var invalidatesToken: Bool

    public init(status: Int?, reason: String, invalidatesToken: Bool) {
        self.status = status
        self.reason = reason
        self.invalidatesToken = invalidatesToken
    }
}
