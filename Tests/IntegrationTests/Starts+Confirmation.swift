import Foundation
import PostgresStore
import Prometheus
import Testing

/// Starts that really start, end to end: confirmation by the device's track call, the duplicate guard and the start
/// budget (issue 26).
@Suite struct StartConfirmationTests {
    static func start(name: String, restart: Bool = false) -> String {
        """
        {"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"start",
         "name":"\(name)","attributes_type":"MatchAttributes","attributes":{"home":"A"},"content_state":{"s":0},
         "alert":{"title":"Kick-off","body":"A v B"}\(restart ? #","restart":true"# : "")}}}}
        """
    }

    static func starts(_ report: [String: Any]) -> [String: Int] { report["starts"] as? [String: Int] ?? [:] }

    /// A start to 20 channels, 15 of which register an instance: `started` 15, and `not_started` 5 once the
    /// (shortened) window is over. A second start is held where the name is active and sent to the other 5.
    @Test func startsCountAsStartedWhenTheDeviceRegistersThem() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let policy = try await gw.request(
                .put, "/admin/apps/\(e2e.app.key)/policies", json: #"{"start_confirm_seconds":3}"#, auth: gw.admin)
            #expect(policy.status == .ok, "\(policy.text)")
            let channels = try await gw.registerStarters(e2e.app, count: 20)
            let first = try await e2e.send(Self.start(name: "game"))
            let sent = try await e2e.finished(first)
            #expect((sent["counts"] as? [String: Int])?["accepted"] == 20, "\(sent)")
            // The settlement runs here, not in the worker (whose recurring run is taken off the queue).
            _ = try await gw.database.client.query("DELETE FROM jobs WHERE kind = 'maintenance.start_settle'")
            let registry = PrometheusCollectorRegistry()
            let settlement = StartSettlement(
                database: gw.database, metrics: PrometheusMetricsFactory(registry: registry))
            #expect(try await settlement.settle() == 0, "settled inside the window")
            for (n, channel) in channels.prefix(15).enumerated() {
                let tracked = try await gw.track(
                    e2e.app, channel: channel, name: "game", token: hexToken(300 + n), systemID: "g-\(n)",
                    attributesType: "MatchAttributes")
                #expect(tracked.status == .created)
            }
            let early = try await e2e.finished(first)
            #expect(Self.starts(early)["started"] == 15, "\(early)")
            #expect(Self.starts(early)["pending"] == 5, "\(early)")

            // The same start again, inside the window: held everywhere (15 active, 5 still unconfirmed).
            let again = try await e2e.finished(try await e2e.send(Self.start(name: "game")))
            #expect(Self.starts(again)["already_active"] == 20, "\(again)")
            #expect((again["counts"] as? [String: Int])?["sent"] == 0)

            // Once the 3 s window is over, the five unconfirmed count as not started.
            _ = try await until("the start window over", timeout: .seconds(20)) {
                Self.starts(try await e2e.finished(first))["pending"] == 0 ? true : nil
            }
            let late = try await e2e.finished(first)
            #expect(
                Self.starts(late) == [
                    "started": 15, "not_started": 5, "pending": 0, "already_active": 0, "start_budget": 0,
                    "suspect_token": 0, "ended": 0, "ended_on_device": 0, "dismissed": 0,
                ])
            let rows = try await gw.database.client.query(
                "SELECT started, not_started, start_rate::float8 FROM start_report WHERE push_id = \(UUID(uuidString: first)!)",
                logger: gw.database.logger)
            var report: [(Int64, Int64, Double?)] = []
            for try await row in rows.decode((Int64, Int64, Double?).self) { report.append(row) }
            #expect(report.count == 1 && report[0].0 == 15 && report[0].1 == 5 && report[0].2 == 0.75, "\(report)")

            // Settled once (both starts so far, once the second one's window has closed too): the counts are written
            // on the push, the report reads them, the metric counts them.
            #expect(
                try await eventually(timeout: .seconds(20)) {
                    try await gw.database.scalar(
                        """
                        SELECT count(*) FROM pushes p JOIN apps a ON a.id = p.app_id
                        WHERE p.event = 'start' AND p.finished_at + a.start_confirm_window <= now()
                        """, as: Int64.self) == 2
                })
            #expect(try await settlement.settle() == 2)
            #expect(try await settlement.settle() == 0)
            let stored = try await gw.database.scalar(
                "SELECT starts_started || '/' || starts_not_started FROM pushes WHERE id = \(UUID(uuidString: first)!)",
                as: String.self)
            #expect(stored == "15/5")
            #expect(Self.starts(try await e2e.finished(first)) == Self.starts(late))
            var text: [UInt8] = []
            registry.emit(into: &text)
            let metrics = String(decoding: text, as: UTF8.self)
            #expect(metrics.contains(#"worker_starts_total{outcome="started"} 15"#), "\(metrics)")
            #expect(metrics.contains(#"worker_starts_total{outcome="not_started"} 5"#), "\(metrics)")

            // After the window, a start is held only where the name is active.
            let third = try await e2e.finished(try await e2e.send(Self.start(name: "game")))
            #expect(Self.starts(third)["already_active"] == 15, "\(third)")
            #expect((third["counts"] as? [String: Int])?["accepted"] == 5, "\(third)")
            for n in 16...20 { #expect(try await e2e.accepted(hexToken(200 + n)) == 2, "channel \(n)") }
            for n in 1...15 { #expect(try await e2e.accepted(hexToken(200 + n)) == 1, "channel \(n)") }
        }
    }

    /// At most N starts per channel per hour; `restart` sends where the name is active.
    @Test func theStartBudgetAndRestart() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            _ = try await gw.request(
                .put, "/admin/apps/\(e2e.app.key)/policies", json: #"{"starts_per_channel_per_hour":2}"#,
                auth: gw.admin)
            let channel = try await gw.registerChannel(e2e.app, installID: "budget")
            _ = try await gw.request(
                .put, "/api/channels/\(channel)/push-to-start/MatchAttributes",
                json: #"{"token":"\#(hexToken(400))"}"#, auth: e2e.app.device)
            let a = try await e2e.finished(try await e2e.send(Self.start(name: "a")))
            #expect((a["counts"] as? [String: Int])?["accepted"] == 1)
            let restart = try await e2e.finished(try await e2e.send(Self.start(name: "a", restart: true)))
            #expect((restart["counts"] as? [String: Int])?["accepted"] == 1, "\(restart)")
            let c = try await e2e.finished(try await e2e.send(Self.start(name: "c")))
            #expect(Self.starts(c)["start_budget"] == 1, "\(c)")
            #expect(try await e2e.accepted(hexToken(400)) == 2)
            let refused = try await e2e.push(
                #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"a","content_state":{},"restart":true}}}}"#
            )
            #expect((refused.json["details"] as? [String: String])?["path"] == "notification.ios.live_activity.restart")
        }
    }

    /// A token whose last K starts were accepted and none started is suspect: the lookup says so, starts skip it,
    /// and registering it again clears it.
    @Test func aTokenSilentForKStartsIsSuspectUntilRegisteredAgain() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let policy = try await gw.request(
                .put, "/admin/apps/\(e2e.app.key)/policies",
                json: #"{"start_confirm_seconds":1,"suspect_after_starts":2}"#, auth: gw.admin)
            #expect(policy.status == .ok, "\(policy.text)")
            let channel = try await gw.registerChannel(e2e.app, installID: "silent")
            let register = {
                try await gw.request(
                    .put, "/api/channels/\(channel)/push-to-start/MatchAttributes",
                    json: #"{"token":"\#(hexToken(500))"}"#, auth: e2e.app.device)
            }
            #expect(try await register().status == .created)
            let state: @Sendable () async throws -> (String?, String?) = {
                let lookup = try await gw.request(.get, "/api/channels/\(channel)", auth: e2e.app.server)
                let tokens = (lookup.json["channel"] as? [String: Any])?["push_to_start"] as? [[String: Any]]
                return (tokens?.first?["state"] as? String, tokens?.first?["last_start"] as? String)
            }
            for name in ["s1", "s2"] {
                let sent = try await e2e.finished(try await e2e.send(Self.start(name: name)))
                #expect((sent["counts"] as? [String: Int])?["accepted"] == 1, "\(sent)")
                // Its 1 s window over: not started.
                _ = try await until("\(name) not started", timeout: .seconds(20)) {
                    try await state().1 == "not_started" ? true : nil
                }
            }
            #expect(try await state() == ("suspect", "not_started"))
            let held = try await e2e.finished(try await e2e.send(Self.start(name: "s3")))
            #expect(Self.starts(held)["suspect_token"] == 1, "\(held)")
            #expect(try await register().json["result"] as? String == "unchanged")
            #expect(try await state().0 == "active")
            let cleared = try await e2e.finished(try await e2e.send(Self.start(name: "s4")))
            #expect((cleared["counts"] as? [String: Int])?["accepted"] == 1, "\(cleared)")
        }
    }
}
