import APNsCommon
import APNsTransport
import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Simulator

/// The APNs simulator on port 0, a trusted signing key, and a client pointed at it.
public struct SimulatorHarness: Sendable {
    public static let teamID = "TEAM123456"
    public static let keyID = "KEY1234567"
    public static let bundleID = "com.example.game"

    public let simulator: RunningSimulator
    public let credentials: APNsCredentials

    public init(simulator: RunningSimulator, credentials: APNsCredentials) {
        self.simulator = simulator
        self.credentials = credentials
    }

    public var topic: String { APNsRequest.liveActivityTopic(bundleID: Self.bundleID) }

    public static func run(_ body: @Sendable (SimulatorHarness) async throws -> Void) async throws {
        let simulator = try await RunningSimulator.start(logger: TestEnvironment.quietLogger)
        let key = P256.Signing.PrivateKey()
        let harness = SimulatorHarness(
            simulator: simulator,
            credentials: APNsCredentials(
                teamID: teamID, keyID: keyID, environment: .development, signingKey: APNsSigningKey(privateKey: key)))
        do {
            try await harness.admin(
                .POST, "/keys",
                [
                    "team_id": teamID, "key_id": keyID, "public_key": key.publicKey.pemRepresentation,
                    "bundle_ids": [bundleID],
                ])
            try await body(harness)
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
    }

    public func clientConfiguration(
        connections: Int = 2, timeout: Duration = .seconds(10)
    ) -> APNsClientConfiguration {
        var configuration = APNsClientConfiguration()
        configuration.endpointOverride = APNsEndpoint(host: "127.0.0.1", port: self.simulator.apnsPort)
        configuration.trustRoots = self.simulator.trustRoots
        configuration.connectionsPerPool = connections
        configuration.requestTimeout = timeout
        return configuration
    }

    /// Runs `body` with a client (shut down afterwards).
    public func withClient(
        _ configuration: APNsClientConfiguration? = nil, tokens: ProviderTokenCache = ProviderTokenCache(),
        _ body: (APNsClient) async throws -> Void
    ) async throws {
        let client = try APNsClient(
            configuration: configuration ?? self.clientConfiguration(), tokens: tokens,
            logger: TestEnvironment.quietLogger)
        do {
            try await body(client)
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }

    public func request(token: String, body: ByteBuffer = Payloads.update, topic: String? = nil) -> APNsRequest {
        APNsRequest(deviceToken: token, topic: topic ?? self.topic, body: body)
    }

    // MARK: admin API (over HTTP, as scripts use it)

    @discardableResult
    public func admin(_ method: HTTPMethod, _ path: String, _ json: Any? = nil, timeout: Duration = .seconds(60))
        async throws -> Any
    {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(self.simulator.adminPort)\(path)")
        request.method = method
        if let json {
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
            request.headers.add(name: "content-type", value: "application/json")
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .init(timeout))
        let body = try await response.body.collect(upTo: 64 << 20)
        return try JSONSerialization.jsonObject(with: Data(body.readableBytesView), options: [.fragmentsAllowed])
    }

    public func configure(_ knobs: [String: Any]) async throws {
        try await self.admin(.POST, "/config", knobs)
    }

    public func stats(token: String? = nil) async throws -> [String: Any] {
        try await self.admin(.GET, "/stats" + (token.map { "?token=\($0)" } ?? "")) as? [String: Any] ?? [:]
    }

    public func notifications(token: String) async throws -> [[String: Any]] {
        try await self.admin(.GET, "/notifications?token=\(token)") as? [[String: Any]] ?? []
    }

    /// What each device shows (the simulator applies Apple's rules to what it recorded), by token.
    public func activities(token: String? = nil) async throws -> [String: [String: Any]] {
        // Every device at once replays every recording: a large fan-out's answer takes a while in a debug build.
        try await self.admin(.GET, "/activities" + (token.map { "?token=\($0)" } ?? ""), timeout: .seconds(120))
            as? [String: [String: Any]] ?? [:]
    }
}
