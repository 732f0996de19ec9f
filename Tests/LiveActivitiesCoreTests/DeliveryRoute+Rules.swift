import Foundation
import LiveActivitiesCore
import Testing

/// How a push goes out, and the rules that depend on its name's broadcast channel.
@Suite struct DeliveryRouteTests {
    static func push(
        _ event: LiveActivityNotification.Event = .update, delivery: DeliveryMode = .auto, audience: Audience = .all,
        priority: Int = 10, expiration: Int64? = nil
    ) -> PushRequest {
        PushRequest(
            audience: audience,
            liveActivity: LiveActivityNotification(
                event: event, name: "match", attributesType: event == .start ? "T" : nil,
                contentState: ["s": .integer(1)], priority: priority, delivery: delivery, expiration: expiration))
    }

    static let none = (id: "Y2hhbm5lbA==", storage: BroadcastStorage.noStorage)
    static let latest = (id: "Y2hhbm5lbA==", storage: BroadcastStorage.latest)

    @Test func autoBroadcastsOnlyToEveryoneOfANameWithAChannel() throws {
        #expect(try Self.push().route(channel: Self.none) == .broadcast(channelID: Self.none.id))
        #expect(try Self.push().route(channel: nil) == .tokens)
        #expect(try Self.push(audience: .namedUser("a")).route(channel: Self.none) == .tokens)
        #expect(try Self.push(.end).route(channel: Self.none) == .broadcast(channelID: Self.none.id))
        // A broadcast cannot start an activity: a start goes to push-to-start tokens.
        #expect(try Self.push(.start).route(channel: Self.none) == .tokens)
        #expect(try Self.push(delivery: .tokens).route(channel: Self.none) == .tokens)
        #expect(try Self.push(delivery: .both).route(channel: Self.none) == .both(channelID: Self.none.id))
    }

    @Test func refusalsNameTheirField() {
        func path(_ push: PushRequest, _ channel: (id: String, storage: BroadcastStorage)?) -> String? {
            do {
                _ = try push.route(channel: channel, prefix: "[1].")
                return nil
            } catch { return error.path }
        }
        let at = "[1].notification.ios.live_activity."
        #expect(path(Self.push(delivery: .broadcast), nil) == at + "delivery")
        #expect(path(Self.push(.start, delivery: .both), Self.none) == at + "delivery")
        #expect(
            path(Self.push(delivery: .broadcast, audience: .tag("a", group: "device")), Self.none) == "[1].audience")
        #expect(path(Self.push(priority: 1, expiration: nil), nil) == at + "priority")
        #expect(path(Self.push(delivery: .both, priority: 1), Self.none) == at + "priority")
        // Apple refuses a non-zero apns-expiration on a channel that stores nothing.
        #expect(path(Self.push(expiration: 1_900_000_000), Self.none) == at + "expiration")
        #expect(path(Self.push(expiration: 0), Self.none) == nil)
        #expect(path(Self.push(expiration: 1_900_000_000), Self.latest) == nil)
        #expect(path(Self.push(priority: 1), Self.latest) == nil)
    }

    @Test func aBroadcastAloneMayCarry5120Bytes() throws {
        var push = Self.push()
        push.liveActivity.contentState = ["text": .string(String(repeating: "x", count: 4500))]
        #expect(throws: ValidationError.self) { try push.payload(timestamp: 1, route: .tokens) }
        #expect(throws: ValidationError.self) { try push.payload(timestamp: 1, route: .both(channelID: "x")) }
        #expect(try push.payload(timestamp: 1, route: .broadcast(channelID: "x")).count > 4096)
    }

    @Test func aStartSubscribesToTheChannelInsteadOfAskingForAToken() throws {
        var start = Self.push(.start)
        start.liveActivity.attributes = [:]
        start.liveActivity.alert = .init(title: "t", body: "b")
        let body = try start.payload(timestamp: 1, inputPushChannel: "Y2g=")
        let aps = try #require(
            (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["aps"] as? [String: Any])
        #expect(aps["input-push-channel"] as? String == "Y2g=")
        #expect(aps["input-push-token"] == nil)
    }
}
