import Foundation

/// Where the app's gateway is and who the app is. The app key and app secret ship in the app: the gateway lets them do
/// only what a device should (its own channel, presented with that channel's secret).
public struct LiveActivitiesConfiguration: Sendable {
    /// The gateway's base URL, e.g. `https://push.example.com` (paths such as `/api/channels` are added to it).
    public var baseURL: URL
    public var appKey: String
    public var appSecret: String
    public var retry: RetryPolicy
    /// Per attempt.
    public var requestTimeout: TimeInterval

    public init(
        baseURL: URL, appKey: String, appSecret: String, retry: RetryPolicy = RetryPolicy(),
        requestTimeout: TimeInterval = 30
    ) {
        self.baseURL = baseURL
        self.appKey = appKey
        self.appSecret = appSecret
        self.retry = retry
        self.requestTimeout = requestTimeout
    }
}
