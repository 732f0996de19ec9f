import Crypto
import Foundation

/// The gateway's HTTP API as the benches use it: create apps, post pushes, read a push's state.
struct GatewayAPI: Sendable {
    let http: BenchHTTP
    let base: String
    let adminToken: String

    struct NewApp: Encodable, Sendable {
        struct APNs: Encodable, Sendable {
            var teamID = "TEAM123456"
            var keyID = "KEY1234567"
            var environment = "development"
            var privateKey: String
            enum CodingKeys: String, CodingKey {
                case environment
                case teamID = "team_id"
                case keyID = "key_id"
                case privateKey = "private_key"
            }
        }
        var name: String
        var bundleID: String
        var apns: APNs
        enum CodingKeys: String, CodingKey {
            case name, apns
            case bundleID = "bundle_id"
        }
    }

    struct CreatedApp: Decodable, Sendable {
        var appKey: String
        var appSecret: String
        var masterSecret: String
        enum CodingKeys: String, CodingKey {
            case appKey = "app_key"
            case appSecret = "app_secret"
            case masterSecret = "master_secret"
        }
        /// The server API's basic credentials (app key : master secret).
        var master: String { self.appKey + ":" + self.masterSecret }
        /// The device API's (app key : app secret).
        var device: String { self.appKey + ":" + self.appSecret }
    }

    struct Accepted: Decodable, Sendable {
        var pushIDs: [String]
        enum CodingKeys: String, CodingKey { case pushIDs = "push_ids" }
    }

    struct Report: Decodable, Sendable {
        struct Push: Decodable, Sendable { var state: String }
        var push: Push
    }

    struct ChannelAnswer: Decodable, Sendable {
        struct Channel: Decodable, Sendable {
            var channelID: String
            enum CodingKeys: String, CodingKey { case channelID = "channel_id" }
        }
        var broadcastChannel: Channel
        enum CodingKeys: String, CodingKey { case broadcastChannel = "broadcast_channel" }
    }

    struct Storage: Encodable, Sendable { var storage: String }

    /// `POST /admin/apps` named `name` (bundle `com.example.<name>`), with the `.p8` the simulator trusts.
    func createApp(_ name: String, bundleID: String? = nil, key: P256.Signing.PrivateKey) async throws -> CreatedApp {
        let body = NewApp(
            name: name, bundleID: bundleID ?? "com.example.\(name)", apns: .init(privateKey: key.pemRepresentation))
        return try await self.http.post(self.base + "/admin/apps", body, bearer: self.adminToken)
            .decode(CreatedApp.self)
    }

    /// `POST /api/push`; the first push id.
    func push(_ body: PushBody, auth: String) async throws -> String {
        let accepted = try await self.http.post(self.base + "/api/push", body, basic: auth).decode(Accepted.self)
        guard let id = accepted.pushIDs.first else { throw BenchError("a push answered no push id") }
        return id
    }

    /// `POST /api/push` as is: the status and the first push id ("" when refused).
    func tryPush(_ body: PushBody, auth: String) async -> (status: Int, id: String) {
        do {
            let answer = try await self.http.call(
                .POST, self.base + "/api/push", body: try BenchHTTP.encoder.encode(body), basic: auth, check: false,
                timeout: 5)
            let id = (try? answer.decode(Accepted.self))?.pushIDs.first ?? ""
            return (answer.status, id)
        } catch {
            return (0, "")
        }
    }

    /// `PUT /admin/apps/<key>/policies` with `policies` (JSON text).
    func setPolicies(_ app: CreatedApp, _ policies: String) async throws {
        _ = try await self.http.call(
            .PUT, self.base + "/admin/apps/\(app.appKey)/policies", body: Data(policies.utf8), bearer: self.adminToken)
    }

    /// `POST /api/push/validate`: every check of a push (the contracts' too), nothing written.
    func validate(_ body: PushBody, auth: String) async throws {
        _ = try await self.http.post(self.base + "/api/push/validate", body, basic: auth)
    }

    /// `PUT /api/attributes-types/<type>/contracts/<version>` with `document` (JSON text).
    func putContract(_ type: String, version: Int, document: String, auth: String) async throws {
        _ = try await self.http.call(
            .PUT, self.base + "/api/attributes-types/\(type)/contracts/\(version)", body: Data(document.utf8),
            basic: auth)
    }

    func state(_ pushID: String, auth: String) async throws -> String {
        try await self.http.get(self.base + "/api/pushes/" + pushID, basic: auth).decode(Report.self).push.state
    }

    /// `PUT /api/broadcast-channels/<name>` with no message storage; the channel id.
    func broadcastChannel(_ name: String, auth: String) async throws -> String {
        try await self.http.put(self.base + "/api/broadcast-channels/" + name, Storage(storage: "none"), basic: auth)
            .decode(ChannelAnswer.self).broadcastChannel.channelID
    }
}
