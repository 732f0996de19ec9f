import Foundation

extension ChaosRun {
    /// Injects one scenario's fault; returns when the fault has ended.
    func fault(_ scenario: String) async throws {
        let repository = self.stack.repository
        let prefix = self.namespace?.prefix ?? []
        switch scenario {
        case "sigterm":
            // A rolling restart: worker 1 sent SIGTERM (its batches stop at a chunk boundary and go on elsewhere),
            // then started again, as an orchestrator would.
            let started = Self.now()
            self.workers[1]?.process.signal(SIGTERM)
            _ = await self.workers[1]?.process.waitForExit(seconds: 120)
            self.notes.append("   sigterm: worker 1 exited \(Self.since(started)) s after SIGTERM")
            try await self.startWorker(1)
        case "sigkill-one":
            try await self.kill(1)
        case "sigkill-both":
            // Both workers killed in turn: the second three seconds after the first came back.
            try await self.kill(1)
            try await Task.sleep(for: .seconds(3))
            try await self.kill(2)
        case "pg-restart":
            try await repository.pg(["restart", self.stack.pgData], prefix: prefix)
        case "pg-stop":
            try await repository.pg(["stop", self.stack.pgData], prefix: prefix)
            try await Task.sleep(for: .seconds(30))
            try await repository.pg(
                ["start", self.stack.pgData, "\(self.pgPort)"] + self.stack.durability.arguments,
                listen: "127.0.0.1,\(self.namespace?.address ?? "127.0.0.1")", prefix: prefix)
        case "term-backends":
            // A random client connection (a worker's or the gateway's, not the bench's) terminated every second for
            // a minute.
            for _ in 0..<60 {
                _ = try? await self.db.text(
                    """
                    SELECT count(pg_terminate_backend(pid)) FROM (SELECT pid FROM pg_stat_activity
                    WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND application_name <> 'bench'
                    ORDER BY random() LIMIT 1) x
                    """)
                try await Task.sleep(for: .seconds(1))
            }
        case "apns-stall":
            try await self.simulator.configure(.init(stall: true))
            try await Task.sleep(for: .seconds(10))
            try await self.simulator.configure(.init(stall: false))
        case "apns-goaway":
            try await self.simulator.configure(.init(goawayAfterStreams: 500))
            try await Task.sleep(for: .seconds(10))
            try await self.simulator.configure(.init(goawayAfterStreams: 0))
        case "apns-503":
            try await self.simulator.configure(.init(failureRates: ["ServiceUnavailable": 0.2]))
            try await Task.sleep(for: .seconds(10))
            try await self.simulator.configure(.init(failureRates: [:]))
        case "primary-lost":
            // The primary SIGKILLed, its data directory made unreadable; the fault ends when the standby is promoted.
            try await self.killPrimary()
        case "net-drop":
            // Every packet between the programs and PostgreSQL dropped for 10 s, both ways.
            try await self.namespace?.drop(seconds: 10)
        default:
            throw BenchError("no fault for '\(scenario)'")
        }
    }

    /// SIGKILL to worker `n`, then started again.
    func kill(_ n: Int) async throws {
        self.workers[n]?.process.signal(SIGKILL)
        _ = await self.workers[n]?.process.waitForExit(seconds: 30)
        try await self.startWorker(n)
    }
}
