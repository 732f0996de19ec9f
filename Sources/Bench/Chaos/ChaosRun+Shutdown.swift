import Foundation

extension ChaosRun {
    /// SIGTERM to the gateway and both workers at once, after `scenario`: each one's exit time, polled; one still
    /// running past its deadline (its GATEWAY_SHUTDOWN_SECONDS or WORKER_SHUTDOWN_SECONDS, 20 and 25 by default, plus
    /// the 5 s its cancellation may take) is SIGKILLed and FAILED. Then all three are started again.
    func measureShutdown(after scenario: String) async throws {
        let knobs = self.stack.knobs
        let gatewayDeadline = Double(try knobs.int("GATEWAY_SHUTDOWN_SECONDS", 20) + 5)
        let workerDeadline = Double(try knobs.int("WORKER_SHUTDOWN_SECONDS", 25) + 5)
        var programs: [(name: String, process: ChildProcess, deadline: Double)] = []
        if let gateway = self.gatewayProcess { programs.append(("gateway", gateway, gatewayDeadline)) }
        let workers = self.workers.keys.sorted()
        for n in workers {
            if let worker = self.workers[n] { programs.append(("worker \(n)", worker.process, workerDeadline)) }
        }
        let started = Self.now()
        for program in programs { program.process.signal(SIGTERM) }
        var exited: [Int: Double] = [:]
        while exited.count < programs.count {
            let elapsed = Self.now() - started
            for (i, program) in programs.enumerated() where exited[i] == nil {
                if !program.process.isRunning {
                    exited[i] = elapsed
                } else if elapsed > program.deadline {
                    program.process.signal(SIGKILL)
                    _ = await program.process.waitForExit(seconds: 10)
                    exited[i] = -1
                }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        var parts: [String] = []
        for (i, program) in programs.enumerated() {
            let seconds = exited[i] ?? -1
            if seconds < 0 {
                let failure = "\(program.name) still running \(Int(program.deadline)) s after SIGTERM: killed"
                self.failures.append("after \(scenario), " + failure)
                parts.append("FAILED (\(failure))")
            } else {
                parts.append(
                    "\(program.name) \(String(format: "%.1f", seconds)) s (deadline \(Int(program.deadline)) s)")
            }
        }
        print("   after \(scenario), SIGTERM to all: " + parts.joined(separator: ", "))
        self.notes.append("   \(scenario): exits after SIGTERM: " + parts.joined(separator: ", "))
        // Started again, as an orchestrator would: the next scenarios need them.
        self.gatewayProcess = try ChaosBench.startGateway(self.stack, port: self.gatewayPort)
        for n in workers { try await self.startWorker(n) }
        await Poll.until(tries: 150, every: .milliseconds(200)) {
            await self.stack.http.answers(self.gateway.base + "/readyz")
        }
        await self.waitForWorkers()
    }
}
