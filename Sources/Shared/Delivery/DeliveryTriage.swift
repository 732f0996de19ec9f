import APNsCommon
import APNsTransport
import LiveActivitiesCore
import PostgresStore

/// What to do with each answer of one chunk of a push. Pure: the batch sender sends, triages, records.
public struct DeliveryTriage: Sendable, Equatable {
    public struct Failure: Sendable, Equatable {
        public var index: Int
        public var status: Int?
        /// The APNs reason as APNs spells it, or `transport:<error>`.
        public var reason: String
        /// The token is dead (Unregistered, ExpiredToken, BadDeviceToken): never send to it again.
        public var invalidatesToken: Bool

        public init(index: Int, status: Int?, reason: String, invalidatesToken: Bool) {
            self.index = index
            self.status = status
            self.reason = reason
            self.invalidatesToken = invalidatesToken
        }

        /// What the ledger records of it.
        public var record: DeliveryFailure {
            DeliveryFailure(status: self.status, reason: self.reason, invalidatesToken: self.invalidatesToken)
        }
    }

    /// Indexes APNs accepted.
    public var accepted: [Int] = []
    /// Final failures of this round.
    public var failures: [Failure] = []
    /// Indexes to send again after a backoff (APNs asked to retry later, or no answer).
    public var retry: [Int] = []
    /// Set when APNs refused our configuration (topic, key, environment, size): the push must stop.
    public var configurationError: String?
    /// The shortest wait APNs asked for (429), if any.
    public var sawRateLimit = false

    public init() {}

    /// - Parameter finalAttempt: on the last attempt nothing is retried: retryable answers become failures.
    public static func triage(_ results: [APNsClient.Result], indexes: [Int], finalAttempt: Bool) -> DeliveryTriage {
        var triage = DeliveryTriage()
        for (index, result) in zip(indexes, results) {
            switch result {
            case .success(.accepted):
                triage.accepted.append(index)
            case .success(.rejected(let status, let reason, _)):
                switch reason.action {
                case .dropToken:
                    triage.failures.append(
                        .init(index: index, status: status, reason: reason.name, invalidatesToken: true))
                case .retryLater:
                    if reason == .tooManyRequests { triage.sawRateLimit = true }
                    if finalAttempt {
                        triage.failures.append(
                            .init(index: index, status: status, reason: reason.name, invalidatesToken: false))
                    } else {
                        triage.retry.append(index)
                    }
                case .configuration, .refreshCredentials:
                    // For refreshCredentials the client already retried with another token where one could be had
                    // (at most one new token a minute): a refusal that remains is the key's (or the clock's) fault.
                    triage.configurationError = triage.configurationError ?? reason.name
                    triage.failures.append(
                        .init(index: index, status: status, reason: reason.name, invalidatesToken: false))
                case .ourBug:
                    triage.failures.append(
                        .init(index: index, status: status, reason: reason.name, invalidatesToken: false))
                }
            case .failure(let error):
                if finalAttempt && error != .shutdown {
                    triage.failures.append(
                        .init(index: index, status: nil, reason: "transport:\(error.code)", invalidatesToken: false))
                } else {
                    triage.retry.append(index)
                }
            }
        }
        return triage
    }
}

extension APNsTransportError {
    /// A stable name for reports and metrics.
    public var code: String {
        switch self {
        case .deadlineExceeded: "deadline_exceeded"
        case .notProcessed: "not_processed"
        case .connectionLost: "connection_lost"
        case .connectFailed: "connect_failed"
        case .shutdown: "shutdown"
        }
    }
}
