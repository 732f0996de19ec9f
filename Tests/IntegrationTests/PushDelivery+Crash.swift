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

    /// SIGTERM stops the batches in flight at their next chunk boundary: the chunks sent are recorded (the cursor
    /// with them), the jobs are queued again without counting an attempt, and the worker exits well within
    /// WORKER_SHUTDOWN_SECONDS. The next worker goes on from the cursors: every token is accepted exactly once.
    /// `LAGW_ROLLOUT_TARGETS` (e.g. 200000) runs it at scale, with the default batch and chunk sizes.
    @Test func sigtermStopsTheBatchAtAChunkBoundary() async throws {
        let scale = ProcessInfo.processInfo.environment["LAGW_ROLLOUT_TARGETS"].flatMap(Int.init)
        let targets = scale ?? 800
        let chunk = scale == nil ? 100 : 1000
        var environment = ["WORKER_SHUTDOWN_SECONDS": "10", "PUSH_CHUNK_SIZE": "\(chunk)"]
        if scale == nil { environment.merge(["PUSH_BATCH_SIZE": "400", "WORKER_CONCURRENCY": "1"]) { $1 } }
        try await EndToEndHarness.run(workers: 1, environment: environment) { e2e in
            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: targets)
            try await e2e.simulator.configure(["latency_ms": 40])
            let posted = ContinuousClock.now
            let id = try await e2e.send(PushDeliveryFailureTests.update(1_700_000_001))
            var seen = 0
            let deadline = ContinuousClock.now + .seconds(60)
            while seen < min(targets / 4, 10 * chunk) && ContinuousClock.now < deadline {
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
            // Each batch is done or queued again at a chunk boundary, its attempt given back; the simulator accepted
            // exactly what the batches recorded.
            let rows = try await e2e.gateway.database.client.query(
                """
                SELECT b.state, b.processed, b.targets, coalesce(j.attempts, 0)
                FROM push_batches b LEFT JOIN jobs j ON j.kind = 'push.batch' AND j.state <> 'dead'
                     AND (j.payload ->> 'push_id')::uuid = b.push_id AND (j.payload ->> 'seq')::int = b.seq
                """, logger: e2e.gateway.database.logger)
            var recorded = 0
            var stopped = 0
            for try await (state, processed, batchTargets, attempts) in rows.decode((String, Int32, Int32, Int32).self)
            {
                recorded += Int(processed)
                if state == "queued" && processed > 0 {
                    stopped += 1
                    #expect(Int(processed) % chunk == 0 && processed < batchTargets && attempts == 0)
                }
            }
            let accepted = try await e2e.simulator.stats()["accepted"] as? Int ?? -1
            #expect(accepted == recorded && stopped >= 1, "accepted \(accepted), recorded \(recorded)")
            try e2e.startWorker("next")
            let report = try await e2e.finished(id, timeout: .seconds(600))
            let total = ContinuousClock.now - posted
            #expect((report["counts"] as? [String: Int])?["accepted"] == targets)
            let tokens = try await e2e.acceptedByToken()
            #expect(
                tokens.count == targets && tokens.values.allSatisfy { $0 == 1 },
                "\(tokens.values.filter { $0 != 1 }.count) tokens not once")
            print(
                "rollout: \(targets) targets; SIGTERM after \(accepted) accepted, exit \(exited) later, \(stopped) batches"
                    + " stopped at a chunk boundary; all accepted once, POST -> done \(total)")
        }
    }
}
