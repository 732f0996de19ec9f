import Foundation
import Testing

/// Contracts end to end (docs/contracts.md): the gateway refuses at the door what the device would drop, and with
/// contracts off the simulator's device (given the same contract) drops it, as iOS would.
@Suite struct ContractDoorTests {
    /// `MatchAttributes` v1: `{home: Int, away: Int, phase: Phase (first|second|fullTime), endsAt: Date?}` and attributes
    /// `{homeTeam: String, awayTeam: String}`; v2 adds `Phase.extraTime`.
    static func contract(phases: [String] = ["first", "second", "fullTime"]) -> String {
        let cases = phases.map { "\"\($0)\"" }.joined(separator: ",")
        return #"""
            {"content_state":{"type":"object","required":["away","home","phase"],"properties":{
               "home":{"type":"integer"},"away":{"type":"integer"},
               "phase":{"type":"string","enum":[\#(cases)]},
               "endsAt":{"type":"number","x-swift-type":"Date"}}},
             "attributes":{"type":"object","required":["awayTeam","homeTeam"],"properties":{
               "homeTeam":{"type":"string"},"awayTeam":{"type":"string"}}}}
            """#
    }

    static func update(_ state: String, timestamp: Int = 1_700_000_100) -> String {
        PushDeliveryGoldenTests.push(
            #"{"event":"update","name":"match","content_state":\#(state),"timestamp":\#(timestamp)}"#)
    }

    /// The bad contents, each with the path and the rule the door names.
    static let bad: [(state: String, path: String, rule: String)] = [
        (#"{"home":"one","away":0,"phase":"first"}"#, "content_state.home", "expected an integer"),
        (#"{"home":1,"phase":"first"}"#, "content_state.away", "is required"),
        (#"{"home":1,"away":0,"phase":"penalties"}"#, "content_state.phase", "must be one of first, second, fullTime"),
        (
            #"{"home":1,"away":0,"phase":"first","endsAt":"tomorrow"}"#, "content_state.endsAt",
            "expected a date: ISO 8601 with a time zone, Unix seconds or seconds since 2001"
        ),
        (#"{"home":1.5,"away":0,"phase":"first"}"#, "content_state.home", "expected an integer"),
    ]

    func putContract(_ e2e: EndToEndHarness, version: Int, _ json: String) async throws {
        let answer = try await e2e.gateway.request(
            .put, "/api/attributes-types/MatchAttributes/contracts/\(version)", json: json, auth: e2e.app.server)
        #expect(answer.status == .created, "\(answer.json)")
    }

    func track(_ e2e: EndToEndHarness, channel: String, token: String, systemID: String, version: Int) async throws {
        let body = #"""
            {"attributes_type":"MatchAttributes","token":"\#(token)","system_activity_id":"\#(systemID)",
             "contract_version":\#(version)}
            """#
        let answer = try await e2e.gateway.request(
            .put, "/api/channels/\(channel)/live-activities/match", json: body, auth: e2e.app.device)
        #expect(answer.status == .created, "\(answer.json)")
    }

    func pushCount(_ e2e: EndToEndHarness) async throws -> Int64 {
        try await e2e.gateway.database.scalar("SELECT count(*) FROM pushes")
    }

    @Test func badContentIsRefusedAtTheDoorAndDroppedByTheDeviceWhenOff() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            try await self.putContract(e2e, version: 1, Self.contract())
            let channel = try await gw.registerChannel(e2e.app, installID: "contract-1")
            let token = hexToken(4801)
            try await self.track(e2e, channel: channel, token: token, systemID: "A", version: 1)
            // The simulator's device runs the same build: it decodes with the same contract.
            let document = try JSONSerialization.jsonObject(with: Data(Self.contract().utf8))
            _ = try await e2e.simulator.admin(.POST, "/contracts", ["tokens": [token], "contract": document])

            let before = try await self.pushCount(e2e)
            for (state, path, rule) in Self.bad {
                let answer = try await e2e.push(Self.update(state))
                #expect(answer.status == .badRequest, "\(state)")
                let details = answer.json["details"] as? [String: Any] ?? [:]
                #expect(details["path"] as? String == "notification.ios.live_activity.\(path)", "\(answer.json)")
                #expect(details["rule"] as? String == "\(rule) (MatchAttributes v1)", "\(answer.json)")
            }
            #expect(try await self.pushCount(e2e) == before, "nothing is written for a refused push")

            // A Unix timestamp for a Date arrives as the device decodes it: seconds since 2001, the same instant.
            let unix = 1_800_000_000
            let good = try await e2e.push(
                Self.update(#"{"home":1,"away":0,"phase":"first","endsAt":\#(unix)}"#, timestamp: 1_700_000_050))
            #expect(good.status == .accepted, "\(good.json)")
            let report = try #require((good.json["contracts"] as? [[String: Any]])?.first)
            #expect(report["checked"] as? [String] == ["MatchAttributes v1"])
            let converted = try #require((report["converted"] as? [[String: Any]])?.first)
            #expect(converted["given"] as? String == "unix_seconds")
            #expect(converted["value"] as? Double == Double(unix - 978_307_200))
            let pushID = try #require((good.json["push_ids"] as? [String])?.first)
            #expect((try await e2e.finished(pushID)["counts"] as? [String: Int])?["accepted"] == 1)
            let shown = try #require(try await e2e.simulator.activities(token: token)[token])
            let instant = Date(timeIntervalSince1970: TimeInterval(unix)).ISO8601Format()
            #expect((shown["dates"] as? [String: String])?["content_state.endsAt"] == instant, "\(shown)")

            // Contracts off: the same pushes reach APNs (which answers 200) and the device drops every one.
            let off = try await gw.request(
                .put, "/admin/apps/\(e2e.app.key)/policies", json: #"{"contract_policy":"off"}"#, auth: gw.admin)
            #expect(off.status == .ok, "\(off.json)")
            for (index, bad) in Self.bad.enumerated() {
                let id = try await e2e.send(Self.update(bad.state, timestamp: 1_700_000_100 + index))
                #expect((try await e2e.finished(id)["counts"] as? [String: Int])?["accepted"] == 1)
            }
            let device = try #require(try await e2e.simulator.activities(token: token)[token])
            #expect(device["ignored_undecodable"] as? Int == Self.bad.count, "\(device)")
            #expect(device["applied"] as? Int == 1, "only the good update was applied: \(device)")
        }
    }

    @Test func aPushForTheNewVersionOnlyWaitsForTheOldDevicesToGo() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            try await self.putContract(e2e, version: 1, Self.contract())
            try await self.putContract(
                e2e, version: 2, Self.contract(phases: ["first", "second", "extraTime", "fullTime"]))
            let old = try await gw.registerChannel(e2e.app, installID: "contract-old")
            let new = try await gw.registerChannel(e2e.app, installID: "contract-new")
            try await self.track(e2e, channel: old, token: hexToken(4811), systemID: "OLD", version: 1)
            try await self.track(e2e, channel: new, token: hexToken(4812), systemID: "NEW", version: 2)

            // The dashboards' view: which versions devices run, and which are stored.
            let versions = try await gw.database.client.query(
                """
                SELECT contract_version, active_live_activities, stored FROM contract_versions
                WHERE attributes_type = 'MatchAttributes' ORDER BY contract_version
                """, logger: gw.database.logger)
            var rows: [String] = []
            for try await (version, live, stored) in versions.decode((Int32, Int64, Bool).self) {
                rows.append("v\(version): \(live) \(stored)")
            }
            #expect(rows == ["v1: 1 true", "v2: 1 true"])

            let extraTime = Self.update(#"{"home":1,"away":1,"phase":"extraTime"}"#)
            let refused = try await e2e.push(extraTime)
            #expect(refused.status == .badRequest)
            #expect(
                (refused.json["details"] as? [String: Any])?["rule"] as? String
                    == "must be one of first, second, fullTime (MatchAttributes v1)", "\(refused.json)")
            let both = try await e2e.push(Self.update(#"{"home":1,"away":1,"phase":"second"}"#))
            #expect(both.status == .accepted)
            #expect(
                ((both.json["contracts"] as? [[String: Any]])?.first?["checked"] as? [String])
                    == ["MatchAttributes v1", "MatchAttributes v2"], "\(both.json)")

            // The last old device ends its activity: the new shape is accepted.
            let ended = try await gw.request(
                .delete, "/api/channels/\(old)/live-activities/match?system_activity_id=OLD", auth: e2e.app.device)
            #expect(ended.status == .ok, "\(ended.json)")
            let accepted = try await e2e.push(extraTime)
            #expect(accepted.status == .accepted, "\(accepted.json)")
        }
    }

    @Test func startsAreCheckedAgainstThePushToStartTokensVersionsAndDryRunOnlyReports() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            try await self.putContract(e2e, version: 1, Self.contract())
            let channel = try await gw.registerChannel(e2e.app, installID: "contract-start")
            let registered = try await gw.request(
                .put, "/api/channels/\(channel)/push-to-start/MatchAttributes",
                json: #"{"token":"\#(hexToken(4821, bytes: 80))","contract_version":1}"#, auth: e2e.app.device)
            #expect(registered.status == .created, "\(registered.json)")
            let start = PushDeliveryGoldenTests.push(
                #"""
                {"event":"start","name":"match","attributes_type":"MatchAttributes","attributes":{"homeTeam":"Lions"},
                 "content_state":{"home":0,"away":0,"phase":"first"},"alert":{"title":"Kick-off","body":"Now"}}
                """#)
            let refused = try await e2e.push(start)
            #expect(refused.status == .badRequest)
            let details = refused.json["details"] as? [String: Any] ?? [:]
            #expect(details["path"] as? String == "notification.ios.live_activity.attributes.awayTeam")
            #expect(details["rule"] as? String == "is required (MatchAttributes v1)")

            // Dry run: accepted as before, with what enforce would have answered.
            let dry = try await gw.request(
                .put, "/admin/apps/\(e2e.app.key)/policies", json: #"{"contract_policy":"dry_run"}"#, auth: gw.admin)
            #expect(dry.status == .ok)
            let accepted = try await e2e.push(start)
            #expect(accepted.status == .accepted, "\(accepted.json)")
            let report = try #require((accepted.json["contracts"] as? [[String: Any]])?.first)
            #expect((report["would_refuse"] as? [String: String])?["path"] == details["path"] as? String)
            #expect(report["policy"] as? String == "dry_run")

            // Required: a type without a contract is refused.
            let required = try await gw.request(
                .put, "/admin/apps/\(e2e.app.key)/policies", json: #"{"contract_policy":"required"}"#, auth: gw.admin)
            #expect(required.status == .ok)
            let other = try await e2e.push(
                PushDeliveryGoldenTests.push(
                    #"""
                    {"event":"start","name":"chest","attributes_type":"ChestAttributes","attributes":{},
                     "content_state":{},"alert":{"title":"Chest","body":"Ready"}}
                    """#))
            #expect(other.status == .badRequest)
            #expect(
                (other.json["details"] as? [String: Any])?["path"] as? String
                    == "notification.ios.live_activity.attributes_type", "\(other.json)")
        }
    }
}
