import Foundation
import Testing

/// Every update reaches the device, newest last, judged by what the simulator's device model shows (Apple's rules:
/// an older timestamp is ignored, an equal one applied, an end ends). Pushes in these tests share one timestamp, as
/// pushes posted within one second do. Gateway, two worker processes, PostgreSQL and the simulator, all real.
@Suite struct PushDeliveryOrderingTests {
    static func push(_ event: String, _ state: Int, timestamp: Int) -> String {
        let dismissal = event == "end" ? #","dismissal_date":\#(timestamp + 3600)"# : ""
        return #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"\#(event)","#
            + #""name":"match","content_state":{"s":\#(state)},"timestamp":\#(timestamp)\#(dismissal)}}}}"#
    }

    static var now: Int { Int(Date().timeIntervalSince1970) }

    /// The `s` of every content state the device received, in order.
    static func received(_ device: [String: Any]?) -> [Int] {
        (device?["received"] as? [Any] ?? []).map { (($0 as? [String: Any])?["s"] as? Int) ?? -1 }
    }

    static func shown(_ device: [String: Any]?) -> Int? {
        (device?["content_state"] as? [String: Any])?["s"] as? Int
    }

    /// Every target is accounted for once: sent (accepted or failed), superseded, skipped or canceled.
    static func accountsForEveryTarget(_ report: [String: Any]) -> Bool {
        let c = report["counts"] as? [String: Int] ?? [:]
        let total = ["sent", "superseded", "skipped", "canceled"].map { c[$0] ?? -1 }.reduce(0, +)
        return total == c["targeted"]
    }

    @Test func anUpdateASecondUpdateAndAnEndInOneSecondAllReachTheDeviceInOrder() async throws {
        try await EndToEndHarness.run(workers: 2) { e2e in
            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: 3)
            let second = Self.now
            for (event, state) in [("update", 1), ("update", 2), ("end", 3)] {
                let report = try await e2e.finished(try await e2e.send(Self.push(event, state, timestamp: second)))
                let counts = report["counts"] as? [String: Int]
                #expect(counts?["accepted"] == 3 && counts?["skipped"] == 0, "\(event) \(state): \(report)")
            }
            let devices = try await e2e.simulator.activities()
            for n in 1...3 {
                let device = devices[hexToken(n)]
                #expect(Self.received(device) == [1, 2, 3])
                #expect(device?["ended"] as? Bool == true && Self.shown(device) == 3)
            }
        }
    }

    @Test func pushesPostedBackToBackLeaveEveryDeviceEndedWithNothingOlderAfterNewer() async throws {
        let environment = ["PUSH_BATCH_SIZE": "400", "PUSH_CHUNK_SIZE": "100"]
        try await EndToEndHarness.run(workers: 2, environment: environment) { e2e in
            let total = 2000
            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: total)
            try await e2e.simulator.configure(["latency_ms": 10])
            let second = Self.now
            var ids: [String] = []
            for (event, state) in [("update", 1), ("update", 2), ("update", 3), ("end", 4)] {
                ids.append(try await e2e.send(Self.push(event, state, timestamp: second)))
            }
            var reports: [[String: Any]] = []
            for id in ids { reports.append(try await e2e.finished(id)) }
            for report in reports { #expect(Self.accountsForEveryTarget(report), "\(report)") }
            #expect((reports[3]["counts"] as? [String: Int])?["accepted"] == total, "every device gets the end")
            #expect((reports[3]["counts"] as? [String: Int])?["targeted"] == total)
            // Random channel ids: each push was cut from its first chunk's spread, not counted (`BatchPlan.estimated`),
            // and what its batches read replaced the estimates. How many batches depends on that spread (about 5 a
            // push; 4 when its first 101 ids happen to reach far, as in one CI run): at least 2 a push.
            let batches = try await e2e.gateway.database.client.query(
                "SELECT count(*), count(*) FILTER (WHERE targets_estimated) FROM push_batches",
                logger: e2e.gateway.database.logger)
            for try await (all, estimated) in batches.decode((Int64, Int64).self) {
                #expect(all >= 8 && estimated == all, "\(estimated) of \(all) batches estimated")
            }

            let devices = try await e2e.simulator.activities()
            var disordered = 0
            var notEnded = 0
            for n in 1...total {
                let device = devices[hexToken(n)]
                let received = Self.received(device)
                if received != received.sorted() || Set(received).count != received.count { disordered += 1 }
                if received.last != 4 || device?["ended"] as? Bool != true || Self.shown(device) != 4 { notEnded += 1 }
            }
            #expect(disordered == 0, "devices that received older content after newer")
            #expect(notEnded == 0, "devices whose last content is not the end")
        }
    }

    @Test func aScheduleFiringAndAnEndInTheSameSecondDeliverTheEnd() async throws {
        try await EndToEndHarness.run(workers: 2) { e2e in
            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: 2)
            let schedule = try await e2e.gateway.request(
                .post, "/api/schedules",
                json: #"{"schedule":{"delay_seconds":0},"push":"#
                    + #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":"#
                    + #"{"event":"update","name":"match","content_state":{"s":1}}}}}}"#,
                auth: e2e.app.server)
            #expect(schedule.status == .created, "\(schedule.text)")

            // The timestamp the schedule's push went out with, once the device has it.
            var fired: Int?
            let deadline = ContinuousClock.now + .seconds(30)
            while fired == nil && ContinuousClock.now < deadline {
                let note = try await e2e.simulator.notifications(token: hexToken(1)).first
                fired = ((note?["body"] as? [String: Any])?["aps"] as? [String: Any])?["timestamp"] as? Int
                if fired == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            let second = try #require(fired, "the schedule did not fire")

            let end = try await e2e.finished(try await e2e.send(Self.push("end", 2, timestamp: second)))
            #expect((end["counts"] as? [String: Int])?["accepted"] == 2, "\(end)")
            for n in 1...2 {
                let device = try await e2e.simulator.activities(token: hexToken(n))[hexToken(n)]
                #expect(Self.received(device) == [1, 2] && device?["ended"] as? Bool == true)
            }
        }
    }

    /// A large update overtaken, mid fan-out, by a newer update to the same name in the same second: ten batches a
    /// push, a hundred chunks, both workers busy. `LAGW_ORDERING_TARGETS` sets the size (default 20,000; batches and
    /// chunks scale with it, as with the default settings at 100,000).
    @Test func aLargeUpdateOvertakenByANewerOneLeavesEveryDeviceOnTheNewer() async throws {
        let total = Int(ProcessInfo.processInfo.environment["LAGW_ORDERING_TARGETS"] ?? "") ?? 20_000
        let environment = ["PUSH_BATCH_SIZE": "\(total / 10)", "PUSH_CHUNK_SIZE": "\(total / 100)"]
        try await EndToEndHarness.run(workers: 2, environment: environment) { e2e in
            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: total)
            try await e2e.simulator.configure(["latency_ms": 20])
            let second = Self.now
            let older = try await e2e.send(Self.push("update", 1, timestamp: second))
            var accepted = 0
            let deadline = ContinuousClock.now + .seconds(120)
            while accepted < total / 10 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                accepted = try await e2e.simulator.stats()["accepted"] as? Int ?? 0
            }
            #expect(accepted >= total / 10 && accepted < total, "the newer push must overtake mid fan-out")
            let newer = try await e2e.send(Self.push("update", 2, timestamp: second))

            let olderReport = try await e2e.finished(older, timeout: .seconds(300))
            let newerReport = try await e2e.finished(newer, timeout: .seconds(300))
            #expect(Self.accountsForEveryTarget(olderReport), "\(olderReport)")
            #expect(Self.accountsForEveryTarget(newerReport), "\(newerReport)")
            #expect(((olderReport["counts"] as? [String: Int])?["superseded"] ?? 0) > 0, "\(olderReport)")
            #expect((newerReport["counts"] as? [String: Int])?["accepted"] == total, "\(newerReport)")

            let devices = try await e2e.simulator.activities()
            var wrong = 0
            for n in 1...total {
                let device = devices[hexToken(n)]
                let received = Self.received(device)
                if Self.shown(device) != 2 || received.last != 2 || received != received.sorted() { wrong += 1 }
            }
            #expect(wrong == 0, "devices not left on the newer content, or given older after newer")
        }
    }
}
