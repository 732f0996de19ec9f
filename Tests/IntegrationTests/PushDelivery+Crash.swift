import Foundation
import Testing

@Suite struct PushDeliveryCrashTests {
    @Test func aWorkerKilledMidFanOutLosesNothingAndDuplicatesAtMostItsChunksInFlight() async throws {
        let environment = ["PUSH_BATCH_SIZE": "500", "PUSH_CHUNK_SIZE": "100", "WORKER_CONCURRENCY": "2"]
        try await EndToEndHarness.run(workers: 1, environment: environment) { e2e in
            let total = 3000
            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: total)
            try await e2e.simulator.configure(["latency_ms": 40])
            let id = try await e2e.send(PushDeliveryFailureTests.update(1_700_000_001))

            // Kill the only worker once it is well into the push.
            var seen = 0
            let deadline = ContinuousClock.now + .seconds(30)
            while seen < 600 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                seen = try await e2e.simulator.stats()["accepted"] as? Int ?? 0
            }
            let running = try #require(e2e.workers.processes().first)
            e2e.workers.kill(running)
            let atKill = try await e2e.simulator.stats()["accepted"] as? Int ?? 0
            #expect(atKill > 0 && atKill < total, "killed at \(atKill) accepted")

            try e2e.startWorker("rescuer")
            let report = try await e2e.finished(id)
            #expect(report["state"] as? String == "done")
            #expect((report["counts"] as? [String: Int])?["accepted"] == total, "\(report)")

            var missing = 0
            var duplicates = 0
            let byToken = try await e2e.acceptedByToken()
            for n in 1...total {
                let accepted = byToken[hexToken(n)] ?? 0
                if accepted == 0 { missing += 1 }
                duplicates += max(0, accepted - 1)
            }
            #expect(missing == 0)
            // At most the chunks the killed worker had in flight: 2 jobs x 100.
            #expect(duplicates <= 200, "\(duplicates) duplicates")
        }
    }

    /// SIGTERM stops the batch in flight at its next chunk boundary: the chunks sent are recorded (the cursor with
    /// them), the job is queued again without counting an attempt, and the worker exits at once, well within
    /// WORKER_SHUTDOWN_SECONDS. The next worker goes on from the cursor: every token is accepted exactly once.
    @Test func sigtermStopsTheBatchAtAChunkBoundary() async throws {
        let environment = [
            "PUSH_BATCH_SIZE": "400", "PUSH_CHUNK_SIZE": "100", "WORKER_CONCURRENCY": "1",
            "WORKER_SHUTDOWN_SECONDS": "10",
        ]
        try await EndToEndHarness.run(workers: 1, environment: environment) { e2e in
            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: 800)
            try await e2e.simulator.configure(["latency_ms": 40])
            let id = try await e2e.send(PushDeliveryFailureTests.update(1_700_000_001))
            var seen = 0
            let deadline = ContinuousClock.now + .seconds(30)
            while seen == 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                seen = try await e2e.simulator.stats()["accepted"] as? Int ?? 0
            }
            try #require(seen > 0, "the push never reached the simulator")
            let worker = try #require(e2e.workers.processes().first)
            let stopping = ContinuousClock.now
            worker.terminate()  // SIGTERM
            worker.waitUntilExit()
            let exited = ContinuousClock.now - stopping
            #expect(worker.terminationStatus == 0)
            #expect(exited < .seconds(10), "the worker took \(exited) to exit")
            // The batch it held stopped at a chunk boundary: queued again, its attempt given back, its cursor where
            // the simulator's count says.
            let held = try await e2e.gateway.database.scalar(
                """
                SELECT b.state || ',' || b.processed || ',' || b.targets || ',' || j.attempts
                FROM push_batches b JOIN jobs j ON j.kind = 'push.batch' AND (j.payload ->> 'seq')::int = b.seq
                WHERE b.seq = 0
                """, as: String.self)
            let parts = held.split(separator: ",").map(String.init)
            let accepted = try await e2e.simulator.stats()["accepted"] as? Int ?? -1
            print("rollout: SIGTERM to exit \(exited); the batch held: \(held) (state, processed, targets, attempts)")
            #expect(parts.first == "queued" && parts.last == "0", "\(held)")
            #expect(Int(parts[1]) == accepted && accepted % 100 == 0 && accepted < 400, "\(held), \(accepted)")
            try e2e.startWorker("next")
            #expect((try await e2e.finished(id)["counts"] as? [String: Int])?["accepted"] == 800)
            let tokens = try await e2e.acceptedByToken()
            #expect(tokens.count == 800 && tokens.values.allSatisfy { $0 == 1 }, "\(tokens.values.filter { $0 != 1 })")
        }
    }
}
