import Foundation
import PostgresNIO
import Testing

/// `make chaos`'s faults at a small scale (2,000 targets, two workers): APNs stalls, GOAWAYs and 503s, and the
/// workers' and gateway's PostgreSQL connections terminated mid-fan-out. The simulator's per-token counts decide:
/// every token accepted at least once, the push done, nothing left sending. (A worker killed: `PushDeliveryCrashTests`;
/// PostgreSQL stopped and restarted under the pools: `DatabaseOutageTests`; the rest at 200,000 targets in
/// `make chaos`.)
@Suite struct PushDeliveryFaultTests {
    static let targets = 2000
    /// Two workers with one chunk of 50 in flight each at 100 ms a round trip: about 1,000 a second, so the push
    /// takes 2 s and the fault (2 s, from the 500th answer) meets most of it. Requests time out after 3 s.
    static let environment = [
        "PUSH_BATCH_SIZE": "500", "PUSH_CHUNK_SIZE": "50", "WORKER_CONCURRENCY": "1",
        "APNS_REQUEST_TIMEOUT_SECONDS": "3",
    ]

    enum APNsFault: String, CaseIterable, Sendable {
        /// Accepts requests and answers none for 2 s: those time out (3 s) and are retried.
        case stall
        /// GOAWAY after every 200 streams on a connection for 2 s: the streams past its last id are sent again.
        case goaway
        /// 503 ServiceUnavailable on 20% of requests for 2 s: retried with backoff.
        case unavailable

        var on: [String: Any] {
            switch self {
            case .stall: ["stall": true]
            case .goaway: ["goaway_after_streams": 200]
            case .unavailable: ["failure_rates": ["ServiceUnavailable": 0.2]]
            }
        }
        var off: [String: Any] {
            switch self {
            case .stall: ["stall": false]
            case .goaway: ["goaway_after_streams": 0]
            case .unavailable: ["failure_rates": [String: Double]()]
            }
        }
    }

    @Test(arguments: APNsFault.allCases)
    func anAPNsFaultMidFanOutLosesNothing(_ fault: APNsFault) async throws {
        try await EndToEndHarness.run(workers: 2, environment: Self.environment) { e2e in
            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: Self.targets)
            try await e2e.simulator.configure(["latency_ms": 100])
            let posted = ContinuousClock.now
            let id = try await e2e.send(PushDeliveryFailureTests.update(1_700_000_001))
            try await Self.waitUntilAccepted(Self.targets / 4, e2e)
            let before = try await e2e.simulator.stats()
            try await e2e.simulator.configure(fault.on)
            try await Task.sleep(for: .seconds(2))  // the fault's duration: the scenario, not a wait for an event
            let during = try await e2e.simulator.stats()
            try await e2e.simulator.configure(fault.off)
            try await Self.expectEveryTokenOnceOrMore(id, e2e, fault: fault.rawValue)
            // The fault met the push: what it leaves behind shows.
            #expect(before["accepted"] as? Int ?? 0 < Self.targets, "the push was over before the fault")
            switch fault {
            case .stall:
                // The stalled requests were given up after the client's 3 s timeout and sent again.
                let elapsed = ContinuousClock.now - posted
                #expect(elapsed > .seconds(3), "POST -> done \(elapsed): nothing waited for the stall")
            case .goaway:
                let connections = { (stats: [String: Any]) in stats["connections_total"] as? Int ?? 0 }
                #expect(connections(during) > connections(before) + 2, "\(before) -> \(during)")
            case .unavailable:
                let refused = (during["rejected"] as? [String: Int])?["ServiceUnavailable"] ?? 0
                #expect(refused > 20, "\(refused) answered 503")
            }
        }
    }

    /// A random connection of the test's database (a worker's or the gateway's) terminated every 50 ms until the
    /// simulator has seen every target (at most 3 s).
    @Test func connectionsTerminatedMidFanOutLoseNothing() async throws {
        try await EndToEndHarness.run(workers: 2, environment: Self.environment) { e2e in
            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: Self.targets)
            try await e2e.simulator.configure(["latency_ms": 100])
            let id = try await e2e.send(PushDeliveryFailureTests.update(1_700_000_001))
            try await Self.waitUntilAccepted(Self.targets / 4, e2e)
            var terminated = 0
            for _ in 0..<60 {
                // Through the gateway's own pool, whose connections are targets too: a query on one that was
                // terminated fails, and the next takes another.
                let killed = try? await e2e.gateway.database.scalar(
                    """
                    SELECT count(pg_terminate_backend(pid))::int8 FROM (
                        SELECT pid FROM pg_stat_activity
                        WHERE datname = current_database() AND backend_type = 'client backend'
                          AND pid <> pg_backend_pid() ORDER BY random() LIMIT 1) x
                    """, as: Int64.self)
                if try await e2e.simulator.stats()["accepted"] as? Int ?? 0 >= Self.targets { break }
                terminated += Int(killed ?? 0)  // counted only while the push was still sending
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(terminated >= 5, "only \(terminated) connections terminated while the push was sending")
            try await Self.expectEveryTokenOnceOrMore(id, e2e, fault: "\(terminated) connections terminated")
        }
    }

    static func waitUntilAccepted(_ count: Int, _ e2e: EndToEndHarness) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        var seen = 0
        while seen < count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            seen = try await e2e.simulator.stats()["accepted"] as? Int ?? 0
        }
        try #require(seen >= count, "the push reached only \(seen) tokens before the fault")
    }

    /// The push done with every target accepted, each token accepted at least once by the simulator, and no batch
    /// or push left sending.
    static func expectEveryTokenOnceOrMore(_ id: String, _ e2e: EndToEndHarness, fault: String) async throws {
        let report = try await e2e.finished(id, timeout: .seconds(120))
        #expect(report["state"] as? String == "done", "\(fault): \(report)")
        #expect((report["counts"] as? [String: Int])?["accepted"] == Self.targets, "\(fault): \(report)")
        let byToken = try await e2e.acceptedByToken()
        let missing = (1...Self.targets).filter { (byToken[hexToken($0)] ?? 0) == 0 }.count
        let most = byToken.values.max() ?? 0
        #expect(missing == 0, "\(fault): \(missing) tokens never accepted")
        let unfinished = try await e2e.gateway.database.scalar(
            """
            SELECT (SELECT count(*) FROM push_batches WHERE state = 'queued')
                 + (SELECT count(*) FROM pushes WHERE state IN ('queued', 'sending'))
            """, as: Int64.self)
        #expect(unfinished == 0, "\(fault): \(unfinished) batches or pushes unfinished")
        print("faults: \(fault): \(Self.targets) targets, 0 lost, at most \(most) per token")
    }
}
