import APNsCommon

/// Where broadcast traffic goes, per environment. Apple's channel-management hosts are fixed; for sends Apple's text
/// names the regular APNs host and shows `api-broadcast(.sandbox).push.apple.com` in its example, so both are
/// configurable (`nil`: Apple's documented default).
public struct APNsBroadcastEndpoints: Sendable, Equatable {
    /// Channel management (create, read, delete, list).
    public var manage: APNsEndpoint?
    /// `POST /4/broadcasts/apps/<bundle id>`.
    public var send: APNsEndpoint?

    public init(manage: APNsEndpoint? = nil, send: APNsEndpoint? = nil) {
        self.manage = manage
        self.send = send
    }

    /// Apple: `api-manage-broadcast.sandbox.push.apple.com:2195` (development), `api-manage-broadcast.push.apple.com:2196`
    /// (production).
    public func manage(_ environment: APNsEnvironment) -> APNsEndpoint {
        self.manage
            ?? (environment == .production
                ? APNsEndpoint(host: "api-manage-broadcast.push.apple.com", port: 2196)
                : APNsEndpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195))
    }

    public func send(_ environment: APNsEnvironment) -> APNsEndpoint {
        self.send ?? .for(environment)
    }
}
