import APNsCommon
import APNsTransport
import Crypto
import Foundation
import Testing

@testable import Simulator

/// The simulator's broadcast API judges as Apple documents it (issue 25's summary of Apple's text), stricter when
/// in doubt: a wrong client must fail here, not only at Apple.
@Suite struct BroadcastRulesTests {
    let state = SimulatorState()
    let key = P256.Signing.PrivateKey()
    let bundle = "com.example.game"

    init() {
        self.state.addKey(
            TrustedKey(teamID: "TEAM", keyID: "KEY", publicKey: self.key.publicKey, bundleIDs: [self.bundle]))
    }

    var authorization: String {
        "bearer " + (try! ProviderTokenMinter.mint(teamID: "TEAM", keyID: "KEY", key: self.key, issuedAt: Date()))
    }

    func create(policy: Int) -> BroadcastRules.Answer {
        BroadcastRules(state: self.state).create(
            bundleID: self.bundle, authorization: self.authorization,
            body: Data(#"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#.utf8))
    }

    func send(_ channel: String?, headers extra: [String: String] = [:], body: String) -> BroadcastRules.Answer {
        var headers = ["authorization": self.authorization, "apns-push-type": "liveactivity", "apns-priority": "10"]
        headers["apns-channel-id"] = channel
        headers.merge(extra) { $1 }
        return BroadcastRules(state: self.state).send(bundleID: self.bundle, headers: headers, body: Data(body.utf8))
    }

    static let update = #"{"aps":{"timestamp":1,"event":"update","content-state":{"s":1}}}"#

    @Test func aChannelIsCreatedReadAndDeletedForGood() throws {
        let created = self.create(policy: 0)
        #expect(created.status == 201)
        let id = try #require(created.headers.first { $0.0 == "apns-channel-id" }?.1)
        #expect(Data(base64Encoded: id) != nil)
        let rules = BroadcastRules(state: self.state)
        let headers = ["authorization": self.authorization, "apns-channel-id": id]
        #expect(rules.read(bundleID: self.bundle, headers: headers).status == 200)
        #expect(rules.delete(bundleID: self.bundle, headers: headers).status == 204)
        #expect(rules.read(bundleID: self.bundle, headers: headers).reason == "ChannelNotRegistered")
        #expect(self.send(id, body: Self.update).reason == "ChannelNotRegistered")
    }

    @Test func sendsAreCheckedInApplesTerms() throws {
        let none = try #require(self.create(policy: 0).headers.first { $0.0 == "apns-channel-id" }?.1)
        let latest = try #require(self.create(policy: 1).headers.first { $0.0 == "apns-channel-id" }?.1)
        #expect(self.send(none, body: Self.update).status == 200)
        #expect(self.send(none, body: Self.update).headers.contains { $0.0 == "apns-unique-id" })
        #expect(self.send(nil, body: Self.update).reason == "MissingChannelId")
        #expect(self.send("not base64!", body: Self.update).reason == "BadChannelId")
        // A channel that stores nothing accepts only an expiration of 0.
        #expect(
            self.send(none, headers: ["apns-expiration": "1900000000"], body: Self.update).reason == "BadExpirationDate"
        )
        #expect(self.send(none, headers: ["apns-expiration": "0"], body: Self.update).status == 200)
        #expect(self.send(latest, headers: ["apns-expiration": "1900000000"], body: Self.update).status == 200)
        #expect(self.send(none, headers: ["apns-priority": "1"], body: Self.update).status == 200)
        #expect(self.send(none, headers: ["apns-priority": "7"], body: Self.update).reason == "BadPriority")
        #expect(self.send(none, headers: ["apns-push-type": "alert"], body: Self.update).reason == "InvalidPushType")
        // A broadcast cannot start an activity.
        let start =
            #"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"T","attributes":{},"alert":{"title":"t"}}}"#
        #expect(self.send(none, body: start).reason == "InvalidPayload")
        let big =
            #"{"aps":{"timestamp":1,"event":"update","content-state":{"s":"\#(String(repeating: "x", count: 5100))"}}}"#
        #expect(self.send(none, body: big).status == 413)
        #expect(self.state.snapshot().broadcasts == 5)
    }

    @Test func theLimitAndTheFeatureSwitchAnswerApplesReasons() throws {
        try self.state.updateKnobs(["max_channels": 1])
        #expect(self.create(policy: 0).status == 201)
        #expect(self.create(policy: 0).reason == "CannotCreateChannelConfig")
        try self.state.updateKnobs(["broadcast_enabled": [self.bundle: false]])
        #expect(self.create(policy: 1).reason == "FeatureNotEnabled")
    }
}
