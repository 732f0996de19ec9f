import Foundation
import HTTPTypes
import Testing

/// The door reads nothing for an app without contracts (its cached record says so); a contract stored elsewhere
/// (here: SQL, as another gateway's PUT would) reaches this gateway's door within about a second (`app_changed`).
@Suite struct ContractChangeTests {
    static let start = PushDeliveryGoldenTests.push(
        #"""
        {"event":"start","name":"chest","attributes_type":"ChestAttributes","attributes":{},"content_state":{},
         "alert":{"title":"Chest","body":"Ready"}}
        """#)

    @Test func aContractStoredElsewhereReachesTheDoorWithinASecond() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let validate = { try await gw.request(.post, "/api/push/validate", json: Self.start, auth: app.server) }
            #expect(try await validate().status == .ok)  // no contract: passes, and the record is cached
            _ = try await gw.database.client.query(
                """
                INSERT INTO activity_contracts (app_id, attributes_type, version, document)
                SELECT id, 'ChestAttributes', 1,
                       '{"content_state":{"type":"object"},
                         "attributes":{"type":"object","required":["chestID"],"properties":{"chestID":{"type":"string"}}}}'
                FROM apps WHERE app_key = \(app.key)
                """)
            let stored = ContinuousClock.now
            var answer = try await validate()
            while ContinuousClock.now < stored + .seconds(2), answer.status == .ok {
                try await Task.sleep(for: .milliseconds(20))
                answer = try await validate()
            }
            #expect(answer.status == .badRequest, "the new contract was not checked 2 s after it was stored")
            #expect(
                (answer.json["details"] as? [String: Any])?["rule"] as? String
                    == "is required (ChestAttributes v1)", "\(answer.json)")
        }
    }
}
