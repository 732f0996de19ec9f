/// Requests per second an app's credentials may make, per gateway process: the master secret's (`server`) and the
/// app secret's (`device`).
public struct RequestRates: Sendable, Equatable {
    public var server: Int
    public var device: Int

    public static let `default` = RequestRates(server: 500, device: 10_000)

    public init(server: Int, device: Int) {
        self.server = server
        self.device = device
    }
}
