import Foundation
import LiveActivitiesClient
import Testing

/// The client's calls at the edges: what is retried, how long it waits, what reaches the caller.
@Suite struct GatewayClientRetryTests {
    static func client(_ url: URL, retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01)) -> GatewayClient {
        GatewayClient(
            configuration: LiveActivitiesConfiguration(baseURL: url, appKey: "key", appSecret: "secret", retry: retry),
            store: FileInstallStore(
                directory: FileManager.default.temporaryDirectory.appendingPathComponent("la-\(UUID())")),
            settings: ChannelSettings(locale: nil, timezone: nil))
    }

    @Test func a503WaitsWhatRetryAfterSays() async throws {
        let server = ScriptedServer()
        server.enqueue(
            "POST /api/channels/c-1/live-activities/reconcile",
            .init(status: 503, body: "{}", headers: ["Retry-After": "1"]))
        try await server.run { url in
            let client = Self.client(url)
            try await client.register()
            let began = ContinuousClock.now
            #expect(try await client.reconcile(keeping: []) == 0)
            #expect(ContinuousClock.now - began >= .milliseconds(950), "waited the Retry-After second")
        }
        #expect(server.requests.filter { $0.path.hasSuffix("/reconcile") }.count == 2)
    }

    @Test func retriedStatusesGiveUpAfterMaxAttempts() async throws {
        let server = ScriptedServer()
        for _ in 0..<3 { server.enqueue("POST /api/channels/c-1/launches", .init(status: 429, body: "{}")) }
        try await server.run { url in
            let client = Self.client(url)
            await #expect(throws: LiveActivitiesError.exhausted(attempts: 3, lastStatus: 429, lastError: nil)) {
                _ = try await client.reportLaunch(systemActivityID: "a")
            }
        }
        let launches = server.requests.filter { $0.path.hasSuffix("/launches") }
        #expect(launches.count == 3)
        let keys = Set(launches.map { $0.headers["idempotency-key"] ?? "" })
        #expect(keys.count == 1 && keys.first?.count == 36, "one key, a UUID, for every retry: \(keys)")
    }

    @Test func otherClientErrorsAreTypedAndNotRetried() async throws {
        let server = ScriptedServer()
        server.enqueue(
            "PUT /api/channels/c-1/push-to-start/",
            .init(
                status: 400,
                body:
                    #"{"ok":false,"error":"The field 'token' must be hex.","error_code":40001,"details":{"path":"token","rule":"must be hex"},"request_id":"r1"}"#
            ))
        try await server.run { url in
            let client = Self.client(url)
            do {
                try await client.setPushToStartToken(Data([1, 2]), attributesType: "MatchAttributes")
                Issue.record("no error")
            } catch LiveActivitiesError.rejected(let rejection) {
                #expect(rejection.status == 400)
                #expect(rejection.errorCode == 40001)
                #expect(rejection.path == "token")
                #expect(rejection.rule == "must be hex")
                #expect(rejection.requestID == "r1")
            }
        }
        #expect(server.requests.filter { $0.path.contains("/push-to-start/") }.count == 1)
    }

    @Test func aForgottenChannelRegistersAgainOnce() async throws {
        let server = ScriptedServer()
        server.enqueue(
            "PUT /api/channels/c-1/push-to-start/",
            .init(status: 404, body: #"{"ok":false,"error":"The channel was not found.","error_code":40400}"#))
        server.enqueue(
            "POST /api/channels", .init(status: 201, body: #"{"ok":true,"channel_id":"c-1","channel_secret":"s-1"}"#))
        server.enqueue(
            "POST /api/channels", .init(status: 201, body: #"{"ok":true,"channel_id":"c-2","channel_secret":"s-2"}"#))
        try await server.run { url in
            let client = Self.client(url)
            try await client.setPushToStartToken(Data([0xab, 0xcd]), attributesType: "MatchAttributes")
            #expect(await client.channelID == "c-2")
        }
        let calls = server.requests.map { "\($0.method) \($0.path) \($0.headers["x-channel-secret"] ?? "-")" }
        #expect(
            calls == [
                "POST /api/channels -", "PUT /api/channels/c-1/push-to-start/MatchAttributes s-1",
                "POST /api/channels -", "PUT /api/channels/c-2/push-to-start/MatchAttributes s-2",
            ])
        let installs = server.requests.filter { $0.method == "POST" }.map {
            ($0.body["channel"] as? [String: Any])?["install_id"] as? String
        }
        #expect(installs.count == 2 && installs[0] != nil && installs[0] == installs[1], "the same install id")
    }

    @Test func anUnreachableGatewayIsRetriedThenReported() async throws {
        let client = Self.client(URL(string: "http://127.0.0.1:1")!)
        do {
            try await client.register()
            Issue.record("no error")
        } catch LiveActivitiesError.exhausted(let attempts, let status, let error) {
            #expect(attempts == 3)
            #expect(status == nil)
            #expect(error != nil)
        }
    }
}
