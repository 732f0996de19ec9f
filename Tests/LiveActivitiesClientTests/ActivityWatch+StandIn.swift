import ActivityKitStandIn
import Foundation
import LiveActivitiesClient
import LiveActivitiesKit
import TestSupport
import Testing

struct ChestAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable { var remaining: Int }
    var chestID: String
}

struct MatchStandInAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable { var home: Int }
    var matchID: String
}

/// The ActivityKit glue against the stand-in: which gateway calls each thing iOS does makes. One suite, serialized:
/// the stand-in is one device per process, as ActivityKit is.
@Suite(.serialized) struct ActivityWatchTests {
    static func startBody(_ chest: String, token: Bool = true) -> Data {
        Data(
            #"{"aps":{"event":"start","timestamp":1,"attributes-type":"ChestAttributes","attributes":{"chestID":"\#(chest)"},"content-state":{"remaining":60}\#(token ? #","input-push-token":1"# : "")}}"#
                .utf8)
    }

    static func calls(_ server: ScriptedServer) -> [String] {
        server.requests.map { request in
            var line = "\(request.method) \(request.path)"
            if !request.query.isEmpty { line += "?\(request.query)" }
            if let token = request.body["token"] as? String { line += " token=\(token.prefix(4))" }
            if let ids = request.body["system_activity_ids"] as? [String] {
                line += " keep=\(ids.joined(separator: ","))"
            }
            return line
        }
    }

    /// Polls until `count` calls were recorded (deadline 10 s).
    static func waitCalls(_ server: ScriptedServer, _ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while server.requests.count < count {
            guard ContinuousClock.now < deadline else {
                Issue.record("only \(server.requests.count) of \(count) calls: \(Self.calls(server))")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func everyTokenStateAndStartIsForwarded() async throws {
        StandInDevice.reset()
        StandInDevice.register(ChestAttributes.self)
        let pts = StandInDevice.issuePushToStartToken(for: ChestAttributes.self)
        let server = ScriptedServer()
        try await server.run { url in
            let client = GatewayClientRetryTests.client(url)
            let watch = client.watch(Activity<ChestAttributes>.self, name: { $0.chestID })
            try await within(.seconds(10), "the restore") { await watch.restored() }
            try await Self.waitCalls(server, 4)
            let id = try StandInDevice.startFromPush(Self.startBody("chest_0"))
            let first = try #require(StandInDevice.pushToken(activityID: id))
            try await Self.waitCalls(server, 5)
            let second = try StandInDevice.rotateToken(activityID: id)
            try await Self.waitCalls(server, 6)
            try StandInDevice.apply(activityID: id, contentState: Data(#"{"remaining":0}"#.utf8), ended: true)
            try await Self.waitCalls(server, 7)
            try StandInDevice.dismiss(activityID: id)
            try await Self.waitCalls(server, 8)
            StandInDevice.setActivitiesEnabled(false)
            try await Self.waitCalls(server, 9)
            watch.cancel()
            let calls = Self.calls(server)
            let hex = { (token: Data) in String(PushTokenHex.encode(token).prefix(4)) }
            #expect(calls.count == 9)
            #expect(calls.prefix(2) == ["POST /api/channels", "PUT /api/channels/c-1"], "registered, enablement told")
            #expect(
                Set(calls[2...3]) == [
                    "PUT /api/channels/c-1/push-to-start/ChestAttributes token=\(hex(pts))",
                    "POST /api/channels/c-1/live-activities/reconcile keep=",
                ])
            #expect(calls[4] == "PUT /api/channels/c-1/live-activities/chest_0 token=\(hex(first))")
            #expect(calls[5] == "PUT /api/channels/c-1/live-activities/chest_0 token=\(hex(second))")
            #expect(
                calls[6].hasPrefix(
                    "DELETE /api/channels/c-1/live-activities/chest_0?system_activity_id=\(id)&reason=ended&at="))
            #expect(
                calls[7].hasPrefix(
                    "DELETE /api/channels/c-1/live-activities/chest_0?system_activity_id=\(id)&reason=dismissed&at="))
            #expect(calls[8] == "PUT /api/channels/c-1")
            let enablement = server.requests[8].body["channel"] as? [String: Any]
            #expect(enablement?["live_activities_enabled"] as? Bool == false)
        }
    }

    @Test func aRelaunchRestoresCurrentActivitiesAndReconcilesOnce() async throws {
        StandInDevice.reset()
        StandInDevice.register(ChestAttributes.self)
        // Started by push while the app was not running: iOS lists it at launch, its token already issued.
        let running = try StandInDevice.startFromPush(Self.startBody("chest_1"))
        let token = String(PushTokenHex.encode(try #require(StandInDevice.pushToken(activityID: running))).prefix(4))
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("la-\(UUID())")
        let server = ScriptedServer()
        try await server.run { url in
            let first = GatewayClientRetryTests.client(url, store: store)
            let watch = first.watch(Activity<ChestAttributes>.self, name: { $0.chestID })
            try await within(.seconds(10), "the first restore") { await watch.restored() }
            let launch = Self.calls(server)
            #expect(launch.contains("PUT /api/channels/c-1/live-activities/chest_1 token=\(token)"))
            #expect(
                launch.last == "POST /api/channels/c-1/live-activities/reconcile keep=\(running)", "after the track")
            let types = server.requests.last?.body["attributes_types"] as? [String]
            #expect(types == ["ChestAttributes"], "only the watched types' instances may end")

            // The process dies; a new one restores from the same store: no registration, the same instance.
            StandInDevice.relaunchApp()
            let second = GatewayClientRetryTests.client(url, store: store)
            let again = second.watch(Activity<ChestAttributes>.self, name: { $0.chestID })
            try await within(.seconds(10), "the restore after relaunch") { await again.restored() }
            again.cancel()
            #expect(
                Array(Self.calls(server).dropFirst(launch.count)) == [
                    "PUT /api/channels/c-1/live-activities/chest_1 token=\(token)",
                    "POST /api/channels/c-1/live-activities/reconcile keep=\(running)",
                ])
        }
    }

    @Test func oneReconcileForEveryWatchedType() async throws {
        StandInDevice.reset()
        let server = ScriptedServer()
        try await server.run { url in
            let client = GatewayClientRetryTests.client(url)
            let watch = client.watch(
                .activity(Activity<ChestAttributes>.self, name: { $0.chestID }),
                .activity(Activity<MatchStandInAttributes>.self, attributesType: "Match", name: { $0.matchID }))
            try await within(.seconds(10), "the restore") { await watch.restored() }
            watch.cancel()
        }
        let reconciles = server.requests.filter { $0.path.hasSuffix("/reconcile") }
        #expect(reconciles.count == 1)
        #expect(Set(reconciles.first?.body["attributes_types"] as? [String] ?? []) == ["ChestAttributes", "Match"])
    }

    /// A call that fails after the client's retries is not lost: the watch sends it again until it is accepted.
    @Test func aFailedCallIsSentAgainLater() async throws {
        StandInDevice.reset()
        StandInDevice.register(ChestAttributes.self)
        StandInDevice.issuePushToStartToken(for: ChestAttributes.self)
        let server = ScriptedServer()
        for _ in 0..<3 { server.enqueue("PUT /api/channels/c-1/push-to-start/", .init(status: 503, body: "{}")) }
        try await server.run { url in
            let client = GatewayClientRetryTests.client(url)
            let watch = client.watch(
                Activity<ChestAttributes>.self, name: { $0.chestID }, resyncInterval: .milliseconds(100))
            try await within(.seconds(10), "the restore") { await watch.restored() }
            try await within(.seconds(10), "the token accepted") {
                while await !watch.isSynced { try await Task.sleep(for: .milliseconds(20)) }
            }
            watch.cancel()
        }
        let sent = server.requests.filter { $0.path.contains("/push-to-start/") }
        #expect(sent.count == 4, "three refused with 503 (one call and its retries), then sent again and accepted")
    }

    @Test func aLocalStartUsesTheNamesBroadcastChannel() async throws {
        StandInDevice.reset()
        let server = ScriptedServer()
        server.enqueue(
            "GET /api/broadcast-channels/match-9",
            .init(status: 200, body: #"{"ok":true,"broadcast_channel":{"channel_id":"Y2hhbm5lbA==","name":"match-9"}}"#)
        )
        try await server.run { url in
            let client = GatewayClientRetryTests.client(url)
            let activity = try await client.start(
                attributes: ChestAttributes(chestID: "match-9"),
                content: ActivityContent(state: ChestAttributes.ContentState(remaining: 5), staleDate: nil),
                name: "match-9")
            #expect(try await client.broadcastChannel(forActivity: activity.id) == "Y2hhbm5lbA==")
            #expect(StandInDevice.broadcastChannel(activityID: activity.id) == "Y2hhbm5lbA==", "started with .channel")
            #expect(StandInDevice.pushToken(activityID: activity.id) == nil)
            let track = try #require(server.requests.last)
            #expect(track.path == "/api/channels/c-1/live-activities/match-9")
            #expect(track.body["broadcast_channel_id"] as? String == "Y2hhbm5lbA==")
            #expect(track.body["token"] == nil)
        }
    }
}
