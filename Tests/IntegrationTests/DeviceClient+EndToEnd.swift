import ActivityKitStandIn
import Foundation
import LiveActivitiesClient
import LiveActivitiesKit
import PostgresNIO
import PostgresStore
import Synchronization
import Testing

/// The attributes of the app in the test, as an app declares them: the activity's name is in its attributes.
struct MatchAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var home: Int
        var away: Int
    }
    var matchID: String
}

/// The device half end to end (issue 45): the client over the real gateway, PostgreSQL, a worker and the APNs
/// simulator, with ActivityKit's stand-in as the device.
@Suite(.serialized) struct DeviceClientEndToEndTests {
    static func startJSON(match: String) -> String {
        """
        {"audience":{"tag":"fans"},"device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"start",
         "name":"\(match)","attributes_type":"MatchAttributes","attributes":{"matchID":"\(match)"},
         "content_state":{"home":0,"away":0},"alert":{"title":"Kick-off","body":"A v B"}}}}}
        """
    }

    static func updateJSON(match: String, home: Int) -> String {
        """
        {"audience":{"tag":"fans"},"device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update",
         "name":"\(match)","content_state":{"home":\(home),"away":0}}}}}
        """
    }

    static func client(_ e2e: EndToEndHarness, store: URL) throws -> GatewayClient {
        let port = try #require(e2e.gateway.client.port)
        return GatewayClient(
            configuration: LiveActivitiesConfiguration(
                baseURL: URL(string: "http://127.0.0.1:\(port)")!, appKey: e2e.app.key, appSecret: e2e.app.appSecret,
                retry: RetryPolicy(maxAttempts: 3, baseDelay: 0.05)),
            store: FileInstallStore(directory: store), settings: ChannelSettings(tags: ["fans"]))
    }

    /// push-to-start to an audience -> the fake device starts -> the client tracks it -> the start counts `started`
    /// -> an update by name reaches the new token -> the token rotates and the next update reaches only the new one
    /// -> a relaunch restores without a duplicate instance or a second start -> the user dismisses -> the report
    /// shows it -> a relaunch after that tracks nothing again.
    @Test func aStartByPushIsTrackedUpdatedRotatedRestoredAndDismissed() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            StandInDevice.reset()
            StandInDevice.register(MatchAttributes.self)
            let store = FileManager.default.temporaryDirectory.appendingPathComponent("lagw-client-\(UUID())")
            defer { try? FileManager.default.removeItem(at: store) }
            let errors = Mutex<[String]>([])
            let onError: @Sendable (any Error) -> Void = { error in errors.withLock { $0.append("\(error)") } }
            let db = e2e.gateway.database
            let device = FakeDevice(simulator: e2e.simulator)

            // Launch: the app watches its type; iOS has a push-to-start token for it.
            let pushToStart = StandInDevice.issuePushToStartToken(for: MatchAttributes.self)
            let client = try Self.client(e2e, store: store)
            let watch = client.watch(Activity<MatchAttributes>.self, name: { $0.matchID }, onError: onError)
            try await within(.seconds(30), "the first restore") { await watch.restored() }
            let channel = try #require(await client.channelID)
            let ptsHex = PushTokenHex.encode(pushToStart)
            try await Self.waitForOneRow(
                db, "the push-to-start token at the gateway",
                "SELECT count(*)::int FROM push_to_start_tokens WHERE channel_id = \(UUID(uuidString: channel)!) AND token = \(ptsHex)"
            )

            // A start by push, to the audience: the device starts the activity; the client tracks it.
            let start = try await e2e.send(Self.startJSON(match: "m1"))
            let ids = try await device.deliverStarts(to: pushToStart, count: 1)
            let activityID = try #require(ids.first)
            let first = try #require(StandInDevice.pushToken(activityID: activityID))
            try await Self.waitTracked(db, activityID: activityID, token: first)
            try await until("the start counted started") {
                let report = try await e2e.finished(start)
                return (report["starts"] as? [String: Any])?["started"] as? Int == 1 ? () : nil
            }
            #expect((try await e2e.finished(start)["counts"] as? [String: Int])?["accepted"] == 1)

            // An update by name reaches the activity's token; the device shows it.
            _ = try await e2e.finished(try await e2e.send(Self.updateJSON(match: "m1", home: 1)))
            #expect(try await e2e.accepted(PushTokenHex.encode(first)) == 1)
            try await device.deliverUpdates(to: activityID, token: first)
            #expect(Activity<MatchAttributes>.activities.first?.content.state.home == 1)

            // iOS rotates the token: the next update reaches only the new one.
            let second = try StandInDevice.rotateToken(activityID: activityID)
            try await Self.waitTracked(db, activityID: activityID, token: second)
            _ = try await e2e.finished(try await e2e.send(Self.updateJSON(match: "m1", home: 2)))
            #expect(try await e2e.accepted(PushTokenHex.encode(second)) == 1)
            #expect(try await e2e.accepted(PushTokenHex.encode(first)) == 1, "the old token got nothing more")
            try await device.deliverUpdates(to: activityID, token: second)
            #expect(Activity<MatchAttributes>.activities.first?.content.state.home == 2)

            // The app is killed and relaunched: a new client restores the activity, no duplicate, no second start.
            watch.cancel()
            StandInDevice.relaunchApp()
            let relaunched = try Self.client(e2e, store: store)
            let watch2 = relaunched.watch(Activity<MatchAttributes>.self, name: { $0.matchID }, onError: onError)
            try await within(.seconds(30), "the restore after relaunch") { await watch2.restored() }
            #expect(await relaunched.channelID == channel)
            #expect(try await Self.instances(db, channel: channel) == "m1:\(activityID):active")
            let again = try await e2e.finished(try await e2e.send(Self.startJSON(match: "m1")))
            #expect((again["starts"] as? [String: Any])?["already_active"] as? Int == 1, "\(again)")
            #expect(try await e2e.accepted(ptsHex) == 1, "no second start reached the device")
            #expect(StandInDevice.activityIDs == [activityID])

            // The user dismisses it: the gateway records when, and the start's report counts it.
            try StandInDevice.dismiss(activityID: activityID)
            try await Self.waitForOneRow(
                db, "the dismissal recorded",
                "SELECT count(*)::int FROM live_activities WHERE system_activity_id = \(activityID) AND dismissed_at IS NOT NULL AND state = 'ended'"
            )
            let report = try await e2e.finished(start)
            #expect((report["starts"] as? [String: Any])?["dismissed"] as? Int == 1, "\(report)")

            // Relaunched once more: nothing to restore, nothing tracked again.
            watch2.cancel()
            StandInDevice.relaunchApp()
            let third = try Self.client(e2e, store: store)
            let watch3 = third.watch(Activity<MatchAttributes>.self, name: { $0.matchID }, onError: onError)
            try await within(.seconds(30), "the restore after the dismissal") { await watch3.restored() }
            #expect(try await Self.instances(db, channel: channel) == "m1:\(activityID):ended")
            watch3.cancel()
            #expect(errors.withLock { $0 } == [])
        }
    }

    /// The real gateway's 404s: one under the channel (an untracked name) reaches the caller and keeps the channel;
    /// a forgotten channel makes the client register again, and the watch sends the new channel what the old knew.
    @Test func aForgottenChannelIsRegisteredAgainWithEverythingItKnew() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            StandInDevice.reset()
            StandInDevice.register(MatchAttributes.self)
            let store = FileManager.default.temporaryDirectory.appendingPathComponent("lagw-client-\(UUID())")
            defer { try? FileManager.default.removeItem(at: store) }
            let db = e2e.gateway.database
            let client = try Self.client(e2e, store: store)
            let watch = client.watch(Activity<MatchAttributes>.self, name: { $0.matchID })
            try await within(.seconds(30), "the first restore") { await watch.restored() }
            let old = try #require(await client.channelID)

            do {
                _ = try await client.scheduleUpdate(
                    name: "untracked", time: .after(seconds: 60), contentState: ["a": 1])
                Issue.record("no error")
            } catch LiveActivitiesError.rejected(let rejection) {
                #expect(rejection.status == 404 && rejection.path == "name", "\(rejection)")
            }
            #expect(await client.channelID == old, "a 404 under the channel keeps it")

            // An activity runs; then the channel is forgotten at the gateway (by the backend, say).
            let id = try StandInDevice.startFromPush(
                Data(
                    #"{"aps":{"event":"start","attributes-type":"MatchAttributes","attributes":{"matchID":"m7"},"content-state":{"home":0,"away":0},"input-push-token":1}}"#
                        .utf8))
            let token = try #require(StandInDevice.pushToken(activityID: id))
            try await Self.waitTracked(db, activityID: id, token: token)
            let forgotten = try await e2e.gateway.request(.delete, "/api/channels/\(old)", auth: e2e.app.server)
            #expect(forgotten.status == .ok, "\(forgotten.text)")

            // The next call meets the 404: the install registers again and the new channel gets the activity back.
            let pushToStart = StandInDevice.issuePushToStartToken(for: MatchAttributes.self)
            let new = try await until("a new channel") { await client.channelID.flatMap { $0 == old ? nil : $0 } }
            try await Self.waitTracked(db, activityID: id, token: token)
            let hex = PushTokenHex.encode(pushToStart)
            try await Self.waitForOneRow(
                db, "the push-to-start token on the new channel",
                "SELECT count(*)::int FROM push_to_start_tokens WHERE channel_id = \(UUID(uuidString: new)!) AND token = \(hex)"
            )
            #expect(try await Self.instances(db, channel: new) == "m7:\(id):active")
            watch.cancel()
        }
    }

    /// Waits until the gateway tracks the activity with that token.
    static func waitTracked(_ db: Database, activityID: String, token: Data) async throws {
        let hex = PushTokenHex.encode(token)
        try await Self.waitForOneRow(
            db, "\(activityID) tracked with \(hex)",
            "SELECT count(*)::int FROM live_activities WHERE system_activity_id = \(activityID) AND push_token = \(hex) AND state = 'active'"
        )
    }

    /// Waits until `count` (a `SELECT count(*)::int`) answers 1.
    static func waitForOneRow(_ db: Database, _ what: String, _ count: PostgresQuery) async throws {
        try await until(what) { try await db.scalar(count, as: Int.self) == 1 ? () : nil }
    }

    /// Every instance of the channel as `name:system id:state`, oldest first.
    static func instances(_ db: Database, channel: String) async throws -> String {
        try await db.scalar(
            "SELECT coalesce(string_agg(name || ':' || system_activity_id || ':' || state, ',' ORDER BY id), '') FROM live_activities WHERE channel_id = \(UUID(uuidString: channel)!)",
            as: String.self)
    }
}
