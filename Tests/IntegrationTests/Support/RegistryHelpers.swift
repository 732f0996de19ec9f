import APNsTransport
import Foundation
import HummingbirdTesting
import LiveActivitiesCore
import PostgresNIO
import PostgresStore
import Testing

extension GatewayHarness {
    /// Registers a device channel through the device API; returns its id.
    func registerChannel(_ app: TestApp, installID: String, extra: String = "") async throws -> String {
        let body = #"{"channel":{"device_type":"ios","install_id":"\#(installID)"\#(extra)}}"#
        // A named user and tag groups other than `device` are the server's to set (the default device permissions).
        let serverOnly = extra.contains("named_user_id") || extra.contains("tag_groups")
        let response = try await self.request(
            .post, "/api/channels", json: body, auth: serverOnly ? app.server : app.device)
        guard let id = response.json["channel_id"] as? String else {
            throw TestSetupError("register: \(response.status) \(response.text)")
        }
        return id
    }

    /// Registers `count` channels (install ids `starter-1`...), each with a push-to-start token of `attributesType`
    /// (`hexToken(201)`...); returns their ids in order.
    func registerStarters(_ app: TestApp, count: Int, attributesType: String = "MatchAttributes") async throws
        -> [String]
    {
        var channels: [String] = []
        for n in 1...count {
            let channel = try await self.registerChannel(app, installID: "starter-\(n)")
            channels.append(channel)
            let registered = try await self.request(
                .put, "/api/channels/\(channel)/push-to-start/\(attributesType)",
                json: #"{"token":"\#(hexToken(200 + n))"}"#, auth: app.device)
            guard registered.status == .created else {
                throw TestSetupError("push-to-start: \(registered.status) \(registered.text)")
            }
        }
        return channels
    }

    /// Tracks an activity through the device API; returns the answer.
    @discardableResult
    func track(
        _ app: TestApp, channel: String, name: String, token: String, systemID: String,
        attributesType: String = "ChestAttributes"
    ) async throws -> TestResponse {
        let body = #"{"attributes_type":"\#(attributesType)","token":"\#(token)","system_activity_id":"\#(systemID)"}"#
        return try await self.request(
            .put, "/api/channels/\(channel)/live-activities/\(name)", json: body, auth: app.device)
    }

    /// The tokens a push to `name` would reach now (the dashboard view the worker's audience query mirrors).
    func targetedTokens(name: String) async throws -> Set<String> {
        let rows = try await self.database.client.query(
            "SELECT push_token FROM targetable_live_activities WHERE name = \(name)", logger: self.database.logger)
        var tokens = Set<String>()
        for try await token in rows.decode(String.self) { tokens.insert(token) }
        return tokens
    }

    /// Rows per registry table, for "nothing changed" and "nothing left" checks.
    func registryRowCounts(channel: String? = nil) async throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        let filter = channel.flatMap(UUID.init(uuidString:))
        for (table, column) in [
            ("channels", "id"), ("channel_tags", "channel_id"), ("push_to_start_tokens", "channel_id"),
            ("live_activities", "channel_id"),
        ] {
            var query = PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)")
            if let filter {
                query = PostgresQuery(
                    unsafeSQL: "SELECT count(*) FROM \(table) WHERE \(column) = $1",
                    binds: {
                        var binds = PostgresBindings()
                        binds.append(filter)
                        return binds
                    }())
            }
            counts[table] = try await self.database.scalar(query, as: Int64.self)
        }
        return counts
    }
}

/// A hex token that differs by `n`.
func hexToken(_ n: Int, bytes: Int = 32) -> String {
    let suffix = String(format: "%08x", n)
    return String(repeating: "ab", count: bytes - 4) + suffix
}

extension GatewayHarness {
    /// Inserts `count` channels of the app, each with an active instance of `name` whose token is `hexToken(n)`
    /// (n from `first`). Straight SQL: fixtures for delivery tests, not a test of the device API.
    func seedActivities(appKey: String, count: Int, name: String = "match", first: Int = 1) async throws {
        _ = try await self.database.scalar(
            """
            WITH app AS (SELECT id, apns_environment FROM apps WHERE app_key = \(appKey)),
            ch AS (
                INSERT INTO channels (app_id, install_id)
                SELECT app.id, 'seed-' || g FROM app, generate_series(\(first), \(first + count - 1)) g
                RETURNING id, app_id, install_id
            ), la AS (
                INSERT INTO live_activities (app_id, channel_id, name, attributes_type, system_activity_id, push_token,
                                             environment)
                SELECT ch.app_id, ch.id, \(name), 'MatchAttributes', 'sys-' || ch.install_id,
                       repeat('ab', 28) || lpad(to_hex(substr(ch.install_id, 6)::int), 8, '0'), app.apns_environment
                FROM ch, app
                RETURNING 1
            )
            SELECT count(*) FROM la
            """, as: Int64.self)
    }
}
