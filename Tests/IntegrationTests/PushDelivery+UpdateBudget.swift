import Foundation
import Testing

/// The update budget (issue 26): past the app's `priority_10_per_hour` for an instance, a priority-10 update goes at
/// priority 5, alerts kept, counted `downgraded`.
@Suite struct UpdateBudgetTests {
    @Test func priority10PastTheBudgetGoesAtPriority5() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let policy = try await gw.request(
                .put, "/admin/apps/\(e2e.app.key)/policies",
                json: #"{"update_budget":[{"attributes_type":"MatchAttributes","priority_10_per_hour":2}]}"#,
                auth: gw.admin)
            #expect(policy.status == .ok, "\(policy.text)")
            let budgeted = try await gw.registerChannel(e2e.app, installID: "budgeted")
            let other = try await gw.registerChannel(e2e.app, installID: "other-type")
            try await gw.track(
                e2e.app, channel: budgeted, name: "m", token: hexToken(600), systemID: "b",
                attributesType: "MatchAttributes")
            try await gw.track(
                e2e.app, channel: other, name: "m", token: hexToken(601), systemID: "o",
                attributesType: "RaceAttributes")
            var reports: [[String: Any]] = []
            for n in 1...3 {
                let id = try await e2e.send(
                    """
                    {"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update",
                     "name":"m","content_state":{"n":\(n)},"alert":{"title":"Goal","body":"\(n)"},
                     "timestamp":\(1_700_000_000 + n)}}}}
                    """)
                reports.append(try await e2e.finished(id))
            }
            #expect(reports.map { $0["downgraded"] as? Int } == [nil, nil, 1], "\(reports)")
            let priorities = try await e2e.simulator.notifications(token: hexToken(600)).map {
                ($0["headers"] as? [String: String])?["apns-priority"]
            }
            #expect(priorities == ["10", "10", "5"])
            let alert = try await e2e.simulator.notifications(token: hexToken(600)).last.flatMap {
                (($0["body"] as? [String: Any])?["aps"] as? [String: Any])?["alert"]
            }
            #expect(alert != nil, "alerts are kept")
            // No budget for the other attributes type (and no app default): always 10.
            let others = try await e2e.simulator.notifications(token: hexToken(601)).map {
                ($0["headers"] as? [String: String])?["apns-priority"]
            }
            #expect(others == ["10", "10", "10"])
        }
    }
}
