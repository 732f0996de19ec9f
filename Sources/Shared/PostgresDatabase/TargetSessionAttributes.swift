/// Which of a multi-host URL's servers a pool may use: libpq's `target_session_attrs`, with its names and meanings.
///
/// libpq's documentation (34.1.2, Parameter Key Words): "`any` (default): any successful connection is acceptable;
/// `read-write`: session must accept read-write transactions by default (that is, the server must not be in hot standby
/// mode and the `default_transaction_read_only` parameter must be off); `read-only`: session must not accept
/// read-write transactions by default (the converse); `primary`: server must not be in hot standby mode; `standby`:
/// server must be in hot standby mode; `prefer-standby`: first try to find a standby server, but if none of the listed
/// hosts is a standby server, try again in `any` mode."
public enum TargetSessionAttributes: String, Sendable, CaseIterable {
    case any
    case readWrite = "read-write"
    case readOnly = "read-only"
    case primary
    case standby
    case preferStandby = "prefer-standby"

    /// What a server said of itself when asked (`pg_is_in_recovery()`, `transaction_read_only`).
    public struct ServerState: Sendable, Equatable {
        public var inRecovery: Bool
        public var readOnly: Bool

        public init(inRecovery: Bool, readOnly: Bool) {
            self.inRecovery = inRecovery
            self.readOnly = readOnly
        }
    }

    /// Whether a server in `state` is acceptable on a first pass over the hosts; `prefer-standby` takes any server on a
    /// second pass (``acceptsOnSecondPass``).
    public func accepts(_ state: ServerState) -> Bool {
        switch self {
        case .any: true
        case .readWrite: !state.inRecovery && !state.readOnly
        case .readOnly: state.inRecovery || state.readOnly
        case .primary: !state.inRecovery
        case .standby, .preferStandby: state.inRecovery
        }
    }

    /// Whether a second pass over the hosts takes any server that answers.
    public var acceptsOnSecondPass: Bool { self == .preferStandby }
}
