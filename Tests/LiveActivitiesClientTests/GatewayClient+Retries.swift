import Foundation
import LiveActivitiesClient
import Testing

/// The client's calls at the edges: what is retried, how long it waits, what reaches the caller.
@Suite struct GatewayClientRetryTests {
    static func client(
        _ url: URL, retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01),
        store: URL = FileManager.default.temporaryDirectory.appendingPathComponent("la-\(UUID())")
    ) -> GatewayClient {
        GatewayClient(
            configuration: LiveActivitiesConfiguration(baseURL: url, appKey: "key", appSecret: "secret", retry: retry),
            store: FileInstallStore(directory: store), settings: ChannelSettings(locale: nil, timezone: nil))
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

    static let channelGone = ScriptedServer.Answer(
        status: 404,
        body: #"{"ok":false,"error":"The channel was not found.","error_code":40400,"details":{"path":"channel_id"}}"#)

    @Test func aForgottenChannelRegistersAgainOnce() async throws {
        let server = ScriptedServer()
        server.enqueue("PUT /api/channels/c-1/push-to-start/", Self.channelGone)
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
        // The second registration presents the old secret: were the channel still there, it would answer it again.
        #expect(
            calls == [
                "POST /api/channels -", "PUT /api/channels/c-1/push-to-start/MatchAttributes s-1",
                "POST /api/channels s-1", "PUT /api/channels/c-2/push-to-start/MatchAttributes s-2",
            ])
        let installs = server.requests.filter { $0.method == "POST" }.map {
            ($0.body["channel"] as? [String: Any])?["install_id"] as? String
        }
        #expect(installs.count == 2 && installs[0] != nil && installs[0] == installs[1], "the same install id")
    }

    /// A 404 of something under the channel (a name it does not track) is the caller's: no registration, the
    /// channel and its secret kept.
    @Test func aNotFoundUnderTheChannelIsNotAForgottenChannel() async throws {
        let server = ScriptedServer()
        server.enqueue(
            "POST /api/channels/c-1/live-activities/",
            .init(
                status: 404,
                body:
                    #"{"ok":false,"error":"The live activity was not found.","error_code":40400,"details":{"path":"name"}}"#
            ))
        try await server.run { url in
            let client = Self.client(url)
            do {
                _ = try await client.scheduleUpdate(name: "nope", time: .after(seconds: 60), contentState: ["a": 1])
                Issue.record("no error")
            } catch LiveActivitiesError.rejected(let rejection) {
                #expect(rejection.status == 404 && rejection.path == "name")
            }
            #expect(await client.channelID == "c-1")
        }
        #expect(server.requests.filter { $0.path == "/api/channels" }.count == 1)
    }

    /// After `forget()` nothing registers the install again behind the user's back; `register()` does.
    @Test func aForgottenInstallStaysForgottenUntilItRegisters() async throws {
        let server = ScriptedServer()
        try await server.run { url in
            let client = Self.client(url)
            try await client.register()
            server.enqueue(
                "DELETE /api/channels/c-1",
                .init(
                    status: 200,
                    body: #"{"ok":true,"removed":{"channels":1,"tags":0,"push_to_start_tokens":0,"live_activities":0}}"#
                ))
            #expect(try await client.forget()?.channels == 1)
            await #expect(throws: LiveActivitiesError.forgotten) {
                try await client.setLiveActivitiesEnabled(false)
            }
            try await client.register()
            #expect(await client.channelID == "c-1")
        }
        #expect(server.requests.filter { $0.path == "/api/channels" }.count == 2)
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
