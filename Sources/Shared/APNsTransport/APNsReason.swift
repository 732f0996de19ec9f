/// What to do about an APNs rejection.
public enum APNsAction: String, Sendable, Equatable {
    /// The token is dead: never send to it again.
    case dropToken = "drop_token"
    /// A passing condition: retry this token later, with backoff.
    case retryLater = "retry_later"
    /// The provider token was refused: mint a new one and retry once.
    case refreshCredentials = "refresh_credentials"
    /// The app's setup is wrong (topic, key, environment, size): stop the push and surface it; do not hammer APNs.
    case configuration
    /// The request itself was malformed: a bug of ours.
    case ourBug = "our_bug"
}

/// Every reason APNs documents, with an `unknown` fallback for reasons added later.
public enum APNsReason: Sendable, Hashable, CustomStringConvertible {
    case badCollapseID, badDeviceToken, badExpirationDate, badMessageID, badPriority, badTopic
    case deviceTokenNotForTopic, duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken, missingTopic
    case payloadEmpty, topicDisallowed, badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden
    case invalidProviderToken, missingProviderToken, unrelatedKeyIDInToken, badEnvironmentKeyInToken, badPath
    case methodNotAllowed, expiredToken, unregistered, payloadTooLarge, tooManyProviderTokenUpdates
    case tooManyRequests, internalServerError, serviceUnavailable, shutdown
    case unknown(String)

    static let table: [(APNsReason, String, APNsAction)] = [
        (.badCollapseID, "BadCollapseId", .ourBug),
        (.badDeviceToken, "BadDeviceToken", .dropToken),
        (.badExpirationDate, "BadExpirationDate", .ourBug),
        (.badMessageID, "BadMessageId", .ourBug),
        (.badPriority, "BadPriority", .ourBug),
        (.badTopic, "BadTopic", .configuration),
        (.deviceTokenNotForTopic, "DeviceTokenNotForTopic", .configuration),
        (.duplicateHeaders, "DuplicateHeaders", .ourBug),
        (.idleTimeout, "IdleTimeout", .retryLater),
        (.invalidPushType, "InvalidPushType", .configuration),
        (.missingDeviceToken, "MissingDeviceToken", .ourBug),
        (.missingTopic, "MissingTopic", .configuration),
        (.payloadEmpty, "PayloadEmpty", .ourBug),
        (.topicDisallowed, "TopicDisallowed", .configuration),
        (.badCertificate, "BadCertificate", .configuration),
        (.badCertificateEnvironment, "BadCertificateEnvironment", .configuration),
        (.expiredProviderToken, "ExpiredProviderToken", .refreshCredentials),
        (.forbidden, "Forbidden", .configuration),
        (.invalidProviderToken, "InvalidProviderToken", .refreshCredentials),
        (.missingProviderToken, "MissingProviderToken", .refreshCredentials),
        (.unrelatedKeyIDInToken, "UnrelatedKeyIdInToken", .configuration),
        (.badEnvironmentKeyInToken, "BadEnvironmentKeyInToken", .configuration),
        (.badPath, "BadPath", .ourBug),
        (.methodNotAllowed, "MethodNotAllowed", .ourBug),
        (.expiredToken, "ExpiredToken", .dropToken),
        (.unregistered, "Unregistered", .dropToken),
        (.payloadTooLarge, "PayloadTooLarge", .configuration),
        (.tooManyProviderTokenUpdates, "TooManyProviderTokenUpdates", .configuration),
        (.tooManyRequests, "TooManyRequests", .retryLater),
        (.internalServerError, "InternalServerError", .retryLater),
        (.serviceUnavailable, "ServiceUnavailable", .retryLater),
        (.shutdown, "Shutdown", .retryLater),
    ]

    static let byName: [String: (APNsReason, APNsAction)] = Dictionary(
        uniqueKeysWithValues: table.map { ($0.1, ($0.0, $0.2)) })
    static let names: [APNsReason: String] = Dictionary(uniqueKeysWithValues: table.map { ($0.0, $0.1) })

    /// Every documented reason (not `unknown`).
    public static var allKnown: [APNsReason] { table.map(\.0) }

    public init(name: String) {
        self = Self.byName[name]?.0 ?? .unknown(name)
    }

    /// The reason as APNs spells it.
    public var name: String {
        if case .unknown(let name) = self { return name }
        return Self.names[self]!
    }

    public var description: String { self.name }

    /// Unknown reasons are retried later: a new transient condition is likelier than a new permanent one.
    public var action: APNsAction {
        if case .unknown = self { return .retryLater }
        return Self.byName[self.name]!.1
    }

    /// The HTTP status APNs answers with for this reason (the simulator uses it).
    public var status: Int {
        switch self {
        case .expiredToken, .unregistered: 410
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIDInToken, .badEnvironmentKeyInToken:
            403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: 429
        case .internalServerError: 500
        case .serviceUnavailable, .shutdown: 503
        case .unknown: 400
        default: 400
        }
    }
}
