import Foundation
import PostgresStore
import Testing

/// Renewal past Apple's 8 hours (issue 26), with a short `after_seconds`: an end and a push-to-start of the same
/// name, the attributes it was started with and its latest content state; the new instance replaces the old one.
@Suite struct RenewalTests {
    @Test func anOldActivityIsEndedAndStartedAgainWithItsState() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let policy = try await gw.request(
                .put, "/admin/apps/\(e2e.app.key)/policies",
                json:
                    #"{"renew":[{"attributes_type":"MatchAttributes","after_seconds":1,"alert":{"title":"Still on","body":"Extra time"}}]}"#,
                auth: gw.admin)
            #expect(policy.status == .ok, "\(policy.text)")
            let channel = try await gw.registerChannel(e2e.app, installID: "marathon")
            let startToken = hexToken(700)
            _ = try await gw.request(
                .put, "/api/channels/\(channel)/push-to-start/MatchAttributes", json: #"{"token":"\#(startToken)"}"#,
                auth: e2e.app.device)
            let old = hexToken(701)
            let tracked = try await gw.request(
                .put, "/api/channels/\(channel)/live-activities/final",
                json:
                    #"{"attributes_type":"MatchAttributes","token":"\#(old)","system_activity_id":"first","attributes":{"home":"A","away":"B"}}"#,
                auth: e2e.app.device)
            #expect(tracked.status == .created, "\(tracked.text)")
            let update = try await e2e.send(
                #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"final","content_state":{"score":"3-2"}}}}}"#
            )
            _ = try await e2e.finished(update)
            try await Task.sleep(for: .seconds(1.2))  // the activity's age past `after_seconds` (1) is the premise
            _ = try await PostgresJobQueue(database: gw.database).enqueue([
                JobRequest(kind: .renew, appID: 0, runAt: Date(), priority: 0, maxAttempts: 1)
            ])
            let deadline = ContinuousClock.now + .seconds(30)
            var starts: [[String: Any]] = []
            while starts.isEmpty && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(25))
                starts = try await e2e.simulator.notifications(token: startToken)
            }
            let aps = try #require(
                (starts.first?["body"] as? [String: Any])?["aps"] as? [String: Any], "\(e2e.workers.logs())")
            #expect(aps["event"] as? String == "start")
            #expect(aps["attributes-type"] as? String == "MatchAttributes")
            #expect(aps["attributes"] as? [String: String] == ["home": "A", "away": "B"])
            #expect(aps["content-state"] as? [String: String] == ["score": "3-2"])
            #expect((aps["alert"] as? [String: String])?["title"] == "Still on")
            // The old activity got its end, dismissed at once.
            var ends: [[String: Any]] = []
            while ends.count < 2 && ContinuousClock.now < deadline {
                ends = try await e2e.simulator.notifications(token: old)
                if ends.count < 2 { try await Task.sleep(for: .milliseconds(25)) }
            }
            let end = (ends.last?["body"] as? [String: Any])?["aps"] as? [String: Any]
            #expect(end?["event"] as? String == "end", "\(ends)")
            // The worker records the start's attempt after Apple's answer, which the simulator shows first: a device
            // that registered before the record would not confirm it (the attempt is not there yet).
            var recorded = ""
            while recorded != "pending" && ContinuousClock.now < deadline {
                let rows = try await gw.database.client.query(
                    "SELECT outcome FROM renewal_report", logger: gw.database.logger)
                for try await value in rows.decode(String.self) { recorded = value }
                if recorded != "pending" { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(recorded == "pending")
            // The device registers the new activity: the renewal started; the instance is renewed once only.
            let renewed = try await gw.track(
                e2e.app, channel: channel, name: "final", token: hexToken(702), systemID: "second",
                attributesType: "MatchAttributes")
            #expect(renewed.status == .created, "\(renewed.text)")
            var outcome = ""
            while outcome != "started" && ContinuousClock.now < deadline {
                let rows = try await gw.database.client.query(
                    "SELECT outcome FROM renewal_report", logger: gw.database.logger)
                for try await value in rows.decode(String.self) { outcome = value }
                if outcome != "started" { try await Task.sleep(for: .milliseconds(25)) }
            }
            #expect(outcome == "started")
            #expect(try await ActivityRenewer(database: gw.database).renew(now: Date()) == 0)
        }
    }
}
