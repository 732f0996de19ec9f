import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresNIO
import PostgresStore
import Testing

/// The device's word on its instances (issue 45, part 4): the DELETE of an activity ends only the instance it names,
/// and says how and when it ended; the device calls that create take an `Idempotency-Key`.
@Suite struct DeviceLifecycleTests {
    static func ended(_ response: TestResponse) -> [String: String] {
        [
            "status": "\(response.status.code)", "ended": "\(response.json["ended"] ?? "-")",
            "recorded": "\(response.json["recorded"] ?? "-")",
        ]
    }

    /// An old activity's end reported after a newer one replaced it under the same name ends nothing.
    @Test func theDeleteEndsOnlyTheInstanceItNames() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "device-1")
            try await gw.track(app, channel: channel, name: "match", token: hexToken(1), systemID: "old")
            let replaced = try await gw.track(app, channel: channel, name: "match", token: hexToken(2), systemID: "new")
            #expect(replaced.json["result"] as? String == "replaced")
            let path = "/api/channels/\(channel)/live-activities/match"

            let stale = try await gw.request(.delete, "\(path)?system_activity_id=old", auth: app.device)
            #expect(Self.ended(stale) == ["status": "200", "ended": "0", "recorded": "0"], "\(stale.text)")
            #expect(try await gw.targetedTokens(name: "match") == [hexToken(2)])
            let unknown = try await gw.request(.delete, "\(path)?system_activity_id=nobody", auth: app.device)
            #expect(Self.ended(unknown) == ["status": "200", "ended": "0", "recorded": "0"], "\(unknown.text)")
            #expect(try await gw.targetedTokens(name: "match") == [hexToken(2)])

            let current = try await gw.request(.delete, "\(path)?system_activity_id=new", auth: app.device)
            #expect(Self.ended(current) == ["status": "200", "ended": "1", "recorded": "1"], "\(current.text)")
            #expect(try await gw.targetedTokens(name: "match").isEmpty)
            let reason = try await gw.database.scalar(
                "SELECT ended_reason FROM live_activities WHERE system_activity_id = 'new'", as: String.self)
            #expect(reason == "untracked")
            let bad = try await gw.request(.delete, "\(path)?system_activity_id=%20", auth: app.device)
            #expect(bad.status == .badRequest)
            #expect((bad.json["details"] as? [String: String])?["path"] == "query:system_activity_id")
        }
    }

    /// Idempotency-Key on `POST .../updates` and `POST .../launches`: a retry answers the first answer and writes
    /// nothing; another key writes; concurrent retries write once; the channel's forget removes the stored answers.
    @Test func deviceCallsThatCreateAreIdempotent() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "device-1")
            try await gw.track(app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            let secret = try #require(gw.channelSecrets[channel])
            let routes: [(path: String, body: String, status: Int, table: String)] = [
                (
                    "/api/channels/\(channel)/live-activities/match/updates",
                    #"{"offset":3600,"content_state":{"home":1}}"#, 201,
                    "SELECT count(*) FROM schedules WHERE channel_id = '\(channel)'"
                ),
                (
                    "/api/channels/\(channel)/launches", #"{"system_activity_id":"A"}"#, 200,
                    "SELECT count(*) FROM launches WHERE channel_id = '\(channel)'"
                ),
            ]
            for route in routes {
                let rows = { try await gw.database.scalar(PostgresQuery(unsafeSQL: route.table), as: Int64.self) }
                func post(_ key: String) async throws -> TestResponse {
                    try await gw.request(
                        .post, route.path, json: route.body, auth: app.device,
                        headers: [HTTPField.Name("Idempotency-Key")!: key])
                }
                let first = try await post("key-1")
                #expect(first.status.code == route.status, "\(first.text)")
                let retry = try await post("key-1")
                #expect(retry.status == first.status && retry.text == first.text, "\(route.path): \(retry.text)")
                #expect(try await rows() == 1)

                let other = try await post("key-2")
                #expect(other.status.code == route.status, "\(other.text)")
                #expect(try await rows() == 2)

                let together = try await Self.concurrently(
                    8, port: try #require(gw.client.port), path: route.path, body: route.body,
                    auth: app.device, secret: secret, key: "key-3")
                #expect(together.allSatisfy { $0.status == route.status }, "\(together)")
                #expect(Set(together.map(\.body)).count == 1, "\(together)")
                #expect(try await rows() == 3)

                for key in ["", String(repeating: "k", count: 256), "with space"] {
                    let refused = try await post(key)
                    #expect(refused.status == .badRequest, "\(key): \(refused.text)")
                    #expect((refused.json["details"] as? [String: String])?["path"] == "header:Idempotency-Key")
                }
                #expect(try await rows() == 3)
            }
            let stored = "SELECT count(*) FROM device_operations WHERE channel_id = '\(channel)'"
            #expect(try await gw.database.scalar(PostgresQuery(unsafeSQL: stored), as: Int64.self) == 6)

            // Retention ages stored answers out with the app's retention (30 days by default).
            _ = try await gw.database.client.query(
                """
                UPDATE device_operations SET created_at = now() - interval '31 days'
                WHERE channel_id = \(UUID(uuidString: channel)!) AND idempotency_key = 'key-1'
                """)
            _ = try await RetentionPurge(database: gw.database).purge()
            #expect(try await gw.database.scalar(PostgresQuery(unsafeSQL: stored), as: Int64.self) == 4)
            let forgotten = try await gw.request(.delete, "/api/channels/\(channel)", auth: app.device)
            #expect(forgotten.status == .ok, "\(forgotten.text)")
            #expect(try await gw.database.scalar(PostgresQuery(unsafeSQL: stored), as: Int64.self) == 0)
        }
    }

    /// `n` identical requests at once, each on its own connection.
    static func concurrently(
        _ n: Int, port: Int, path: String, body: String, auth: String, secret: String, key: String
    ) async throws -> [(status: Int, body: String)] {
        try await withThrowingTaskGroup(of: (status: Int, body: String).self) { group in
            for _ in 0..<n {
                group.addTask {
                    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
                    request.method = .POST
                    request.headers.add(name: "Authorization", value: auth)
                    request.headers.add(name: "X-Channel-Secret", value: secret)
                    request.headers.add(name: "Idempotency-Key", value: key)
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(ByteBuffer(string: body))
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                    let answer = try await response.body.collect(upTo: 1 << 16)
                    return (Int(response.status.code), String(buffer: answer))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}
