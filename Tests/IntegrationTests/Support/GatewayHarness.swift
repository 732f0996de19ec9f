import APNsBroadcast
import APNsTransport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiveActivitiesCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresStore

@testable import Gateway

/// The real gateway application on a real port (port 0), against a fresh database.
struct GatewayHarness: Sendable {
    static let adminToken = "test-admin-token-0123456789"

    let client: any TestClientProtocol
    let database: Database
    /// Each channel's secret as its registration returned it: device calls on the channel present it.
    let channelSecrets = ChannelSecrets()
    /// The gateway's own database (processes the test starts connect here).
    let databaseURL: DatabaseURL

    /// Runs `body` against a live gateway. `logs` (when given) captures everything the gateway logs. `databaseURL`:
    /// a database the caller prepared (the Citus suite's coordinator) instead of a fresh copy of the template.
    static func run(
        logs: LogCapture? = nil, databaseURL: DatabaseURL? = nil,
        maxBodyBytes: Int = 64 * 1024,
        masterKey: MasterKey = .random(),
        broadcast: APNsBroadcastClient = APNsBroadcastClient(),
        gaugeInterval: Duration = .milliseconds(100), metricsToken: String? = nil, headerTimeout: Int = 600,
        readDatabase: Database? = nil, shed: (target: Duration, floor: Int)? = nil,
        _ body: @Sendable (GatewayHarness) async throws -> Void
    ) async throws {
        let withDatabaseURL: @Sendable (@Sendable (Database, DatabaseURL) async throws -> Void) async throws -> Void =
            { body in
                // Statements on their connections' loops, as the gateway's pool runs them (`buildGateway`).
                guard let databaseURL else { return try await withTestDatabaseURL(onConnectionsLoop: true, body) }
                try await withDatabase(databaseURL, onConnectionsLoop: true) { try await body($0, databaseURL) }
            }
        try await withDatabaseURL { database, url in
            var configuration = GatewayConfiguration(
                host: "127.0.0.1", port: 0, databaseURL: url, adminToken: adminToken,
                masterKey: masterKey, maxBodyBytes: maxBodyBytes)
            configuration.gaugeInterval = gaugeInterval
            configuration.metricsToken = metricsToken
            // Load shedding only where a test asks for it: a debug build under a test's bursts is slow enough to shed.
            configuration.shedTarget = shed?.target
            configuration.shedFloor = shed?.floor
            // The test client keeps one connection, idle between requests as long as a test waits.
            configuration.httpHeaderTimeout = headerTimeout
            configuration.httpIdleTimeout = max(headerTimeout, 600)
            var logger = Logger(label: "gateway-test") { label in
                if let logs { return logs.handler(label: label) }
                return SwiftLogNoOpLogHandler()
            }
            logger.logLevel = .trace
            let dependencies = GatewayDependencies(
                database: Database(client: database.client, logger: logger), masterKey: configuration.masterKey,
                broadcast: broadcast, readDatabase: readDatabase)
            let app = buildApplication(configuration: configuration, dependencies: dependencies, logger: logger)
            do {
                try await app.test(.live) { client in
                    try await body(
                        GatewayHarness(client: client, database: database, databaseURL: url))
                }
            } catch {
                await broadcast.shutdown()
                throw error
            }
            await broadcast.shutdown()
        }
    }

    // MARK: requests

    /// A device call (`/api/channels/{id}/...`) presents the channel's secret unless `presentSecret` is false or
    /// the headers carry one; a registration's answer records it.
    func request(
        _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, auth: String? = nil,
        headers extra: HTTPFields = [:], presentSecret: Bool = true
    ) async throws -> TestResponse {
        var headers = extra
        if let auth { headers[.authorization] = auth }
        if json != nil { headers[.contentType] = "application/json" }
        let channelSecret = HTTPField.Name("X-Channel-Secret")!
        if presentSecret, headers[channelSecret] == nil, uri.hasPrefix("/api/channels/") {
            let id = uri.dropFirst("/api/channels/".count).prefix { $0 != "/" && $0 != "?" }
            if let secret = self.channelSecrets[String(id)] { headers[channelSecret] = secret }
        }
        let response = try await self.client.execute(
            uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
        if method == .post, uri == "/api/channels", let id = response.json["channel_id"] as? String,
            let secret = response.json["channel_secret"] as? String
        {
            self.channelSecrets[id] = secret
        }
        return response
    }

    var admin: String { "Bearer \(Self.adminToken)" }

    static func basic(_ key: String, _ secret: String) -> String {
        "Basic " + Data("\(key):\(secret)".utf8).base64EncodedString()
    }

    /// Creates an app through the operator API; returns its key and secrets.
    func createApp(name: String = "Demo", bundleID: String = "com.example.demo") async throws -> TestApp {
        let response = try await self.request(
            .post, "/admin/apps", json: Fixtures.createAppJSON(name: name, bundleID: bundleID), auth: self.admin)
        guard response.status == .created else {
            throw TestSetupError("create app: \(response.status) \(String(buffer: response.body))")
        }
        let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as! [String: Any]
        return TestApp(
            key: json["app_key"] as! String,
            appSecret: json["app_secret"] as! String,
            masterSecret: json["master_secret"] as! String)
    }
}

struct TestApp: Sendable {
    var key: String
    var appSecret: String
    var masterSecret: String

    var server: String { GatewayHarness.basic(self.key, self.masterSecret) }
    var device: String { GatewayHarness.basic(self.key, self.appSecret) }
}

extension TestResponse {
    /// The body as a JSON object (empty when it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: self.body))) as? [String: Any] ?? [:]
    }

    var text: String { String(buffer: self.body) }
}

/// Channel secrets by channel id, shared by the copies of a harness.
final class ChannelSecrets: Sendable {
    private let secrets = NIOLockedValueBox<[String: String]>([:])

    subscript(id: String) -> String? {
        get { self.secrets.withLockedValue { $0[id] } }
        set { self.secrets.withLockedValue { $0[id] = newValue } }
    }
}
