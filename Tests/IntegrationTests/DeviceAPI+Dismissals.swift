import Foundation
import HummingbirdTesting
import PostgresNIO
import PostgresStore
import Testing

/// How instances a start created ended on the device (issue 45, part 4): `reason=ended|dismissed` and `at` on the
/// DELETE, counted in the start's report, in `start_report` and in `gateway_live_activity_device_ends_total`.
@Suite struct DeviceDismissalTests {
    @Test func endsAndDismissalsAreRecordedAndCountedInTheStartsReport() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let channels = try await gw.registerStarters(e2e.app, count: 3)
            let start = try await e2e.send(StartConfirmationTests.start(name: "game"))
            #expect((try await e2e.finished(start)["counts"] as? [String: Int])?["accepted"] == 3)
            for (n, channel) in channels.enumerated() {
                let tracked = try await gw.track(
                    e2e.app, channel: channel, name: "game", token: hexToken(300 + n), systemID: "g-\(n)",
                    attributesType: "MatchAttributes")
                #expect(tracked.status == .created)
            }
            func path(_ n: Int) -> String { "/api/channels/\(channels[n])/live-activities/game" }
            func delete(_ n: Int, _ query: String) async throws -> TestResponse {
                try await gw.request(.delete, "\(path(n))?\(query)", auth: e2e.app.device)
            }
            let now = Int(Date().timeIntervalSince1970)

            // Bad input: 400 naming the parameter, nothing written.
            for (query, parameter) in [
                ("reason=gone", "query:reason"), ("at=soon", "query:at"), ("at=1.5", "query:at"),
                ("at=\(now + 3600)", "query:at"),
            ] {
                let refused = try await delete(2, query)
                #expect(refused.status == .badRequest, "\(query): \(refused.text)")
                #expect((refused.json["details"] as? [String: String])?["path"] == parameter, "\(refused.text)")
            }
            #expect(try await gw.targetedTokens(name: "game").count == 3)
            let before = try await e2e.finished(start)
            #expect(StartConfirmationTests.starts(before)["ended"] == 0 && before["lifetime_seconds"] == nil)

            // Dismissed while active (the user swiped it away), seen 30 s after it started (`at` may be ahead of
            // the gateway's clock by up to 60 s).
            let started0 = try await gw.database.scalar(
                "SELECT extract(epoch FROM started_at)::float8 FROM live_activities WHERE system_activity_id = 'g-0'",
                as: Double.self)
            let at0 = Int(started0.rounded(.down)) + 30
            let dismissed = try await delete(0, "system_activity_id=g-0&reason=dismissed&at=\(at0)")
            #expect(DeviceLifecycleTests.ended(dismissed) == ["status": "200", "ended": "1", "recorded": "1"])
            let stamps = try await gw.database.scalar(
                """
                SELECT extract(epoch FROM device_ended_at)::int8 || '/' || extract(epoch FROM dismissed_at)::int8
                FROM live_activities WHERE system_activity_id = 'g-0'
                """, as: String.self)
            #expect(stamps == "\(at0)/\(at0)")

            // Ended on the device (no id: the name's current instance), then dismissed from the Lock Screen later:
            // the dismissal is recorded on the ended instance (ended 0), once.
            // Its `at` is an hour before it started (a device clock behind the gateway's): taken as its start.
            let endedOne = try await delete(1, "reason=ended&at=\(now - 3600)")
            #expect(DeviceLifecycleTests.ended(endedOne) == ["status": "200", "ended": "1", "recorded": "1"])
            #expect(
                try await gw.database.scalar(
                    "SELECT device_ended_at = started_at FROM live_activities WHERE system_activity_id = 'g-1'",
                    as: Bool.self))
            for _ in 1...2 {
                let later = try await delete(1, "system_activity_id=g-1&reason=dismissed")
                #expect(DeviceLifecycleTests.ended(later) == ["status": "200", "ended": "0", "recorded": "1"])
            }
            // An end for an instance that is not current under the name records nothing.
            let notCurrent = try await delete(1, "system_activity_id=g-1&reason=ended")
            #expect(DeviceLifecycleTests.ended(notCurrent) == ["status": "200", "ended": "0", "recorded": "0"])
            #expect(try await gw.targetedTokens(name: "game") == [hexToken(302)])

            let report = try await e2e.finished(start)
            let starts = StartConfirmationTests.starts(report)
            #expect(starts["started"] == 3, "\(report)")
            #expect(starts["ended"] == 2 && starts["ended_on_device"] == 2 && starts["dismissed"] == 2, "\(report)")
            let lifetime = try #require(report["lifetime_seconds"] as? [String: Double], "\(report)")
            let longest = 30 - (started0 - started0.rounded(.down))
            #expect(abs((lifetime["max"] ?? 0) - longest) < 0.01, "\(lifetime) vs \(longest)")
            #expect((lifetime["median"] ?? -1) >= 0 && (lifetime["median"] ?? 99) <= (lifetime["p90"] ?? 0))

            let view = try await gw.database.scalar(
                """
                SELECT ended || '/' || ended_on_device || '/' || dismissed || '/' || lifetime_max_seconds
                FROM start_report WHERE push_id = \(UUID(uuidString: start)!)
                """, as: String.self)
            #expect(view.hasPrefix("2/2/2/"), "\(view)")
            let hourly = try await gw.database.scalar(
                "SELECT ended || '/' || ended_on_device || '/' || dismissed FROM start_report_hourly", as: String.self)
            #expect(hourly == "2/2/2")

            let metrics = try await gw.request(.get, "/metrics").text
            #expect(metrics.contains(#"gateway_live_activity_device_ends_total{reason="dismissed"} 2"#), "\(metrics)")
            #expect(metrics.contains(#"gateway_live_activity_device_ends_total{reason="ended"} 1"#), "\(metrics)")
        }
    }
}
