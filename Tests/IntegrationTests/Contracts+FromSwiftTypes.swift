import Foundation
import LiveActivitiesClient
import LiveActivitiesContracts
import Testing

/// A contract made by the client package from the app's own Swift types and uploaded as an app's CI would; the device
/// reports the version it carries through the client; the door refuses what those types would not decode, and what
/// passes is decoded from the very bytes APNs delivered by Foundation's `JSONDecoder` into the same types.
@Suite struct ContractFromSwiftTypesTests {
    struct ScoreAttributes: Codable {
        struct ContentState: Codable, Equatable {
            enum Phase: String, Codable, CaseIterable { case first, second, fullTime }
            var home: Int
            var away: Int
            var phase: Phase
            var endsAt: Date?
        }
        var homeTeam: String
        var awayTeam: String
    }

    struct Delivered: Decodable {
        struct APS: Decodable {
            var contentState: ScoreAttributes.ContentState
            enum CodingKeys: String, CodingKey { case contentState = "content-state" }
        }
        var aps: APS
    }

    static func update(_ state: String) -> String {
        PushDeliveryGoldenTests.push(#"{"event":"update","name":"game","content_state":\#(state)}"#)
    }

    @Test func aContractFromSwiftTypesGuardsTheDoorAndTheDeliveredBytesDecode() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let port = try #require(e2e.gateway.client.port)
            let gateway = URL(string: "http://127.0.0.1:\(port)")!
            let contract = try ActivityContract.make(
                contentState: ScoreAttributes.ContentState.self, attributes: ScoreAttributes.self)
            try await ContractUpload(gateway: gateway, appKey: e2e.app.key, masterSecret: e2e.app.masterSecret)
                .put(contract, attributesType: "ScoreAttributes", version: 3)

            let store = FileManager.default.temporaryDirectory.appendingPathComponent("lagw-contract-\(UUID())")
            defer { try? FileManager.default.removeItem(at: store) }
            let client = GatewayClient(
                configuration: LiveActivitiesConfiguration(
                    baseURL: gateway, appKey: e2e.app.key, appSecret: e2e.app.appSecret,
                    retry: RetryPolicy(maxAttempts: 1, baseDelay: 0.05)),
                store: FileInstallStore(directory: store), settings: ChannelSettings())
            _ = try await client.register()
            let token = hexToken(4831)
            try await client.track(
                name: "game", attributesType: "ScoreAttributes", systemActivityID: "S",
                token: Data(hexString: token), contractVersion: 3)

            let refused = try await e2e.push(Self.update(#"{"home":"one","away":0,"phase":"first"}"#))
            #expect(refused.status == .badRequest)
            #expect(
                (refused.json["details"] as? [String: Any])?["rule"] as? String
                    == "expected an integer (ScoreAttributes v3)", "\(refused.json)")
            // The device's own scheduled update is held to its contract too.
            do {
                _ = try await client.scheduleUpdate(
                    name: "game", time: .after(seconds: 60), contentState: ["home": "one", "away": "0"])
                Issue.record("a scheduled update the app could not decode was accepted")
            } catch LiveActivitiesError.rejected(let rejection) {
                #expect(rejection.status == 400 && rejection.path == "content_state.away", "\(rejection)")
                #expect(rejection.rule == "expected an integer (ScoreAttributes v3)", "\(rejection)")
            }

            let endsAt = Date(timeIntervalSince1970: 1_800_000_000)
            let id = try await e2e.send(
                Self.update(#"{"home":2,"away":1,"phase":"second","endsAt":"2027-01-15T08:00:00Z"}"#))
            #expect((try await e2e.finished(id)["counts"] as? [String: Int])?["accepted"] == 1)
            let id2 = try await e2e.send(
                Self.update(#"{"home":3,"away":1,"phase":"fullTime","endsAt":1800000000}"#))
            #expect((try await e2e.finished(id2)["counts"] as? [String: Int])?["accepted"] == 1)
            let bodies = try await e2e.simulator.notifications(token: token).compactMap { $0["body"] }
            #expect(bodies.count == 2)
            let states = try bodies.map {
                try JSONDecoder().decode(Delivered.self, from: JSONSerialization.data(withJSONObject: $0)).aps
                    .contentState
            }
            #expect(states.first?.endsAt == ISO8601DateFormatter().date(from: "2027-01-15T08:00:00Z"))
            #expect(states.last == .init(home: 3, away: 1, phase: .fullTime, endsAt: endsAt))
        }
    }
}

extension Data {
    /// The bytes of an even-length hex string (test tokens).
    init(hexString: String) {
        var bytes: [UInt8] = []
        var index = hexString.startIndex
        while index < hexString.endIndex {
            let next = hexString.index(index, offsetBy: 2)
            bytes.append(UInt8(hexString[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}
