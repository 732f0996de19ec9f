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

    @Test func sigtermDrainsTheBatchInFlight() async throws {
        let environment = ["PUSH_BATCH_SIZE": "400", "PUSH_CHUNK_SIZE": "100", "WORKER_CONCURRENCY": "1"]
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
            worker.terminate()  // SIGTERM
            worker.waitUntilExit()
            #expect(worker.terminationStatus == 0)
            // The batch it held was finished, not abandoned: exactly its targets accepted, the other batches
            // (about 400 targets each, cut by channel id) untouched.
            let batches = try await e2e.gateway.database.scalar(
                "SELECT string_agg(state, ',' ORDER BY seq) FROM push_batches", as: String.self)
            let states = batches.split(separator: ",")
            #expect(states.first == "done" && states.count >= 2 && states.dropFirst().allSatisfy { $0 == "queued" })
            let held = try await e2e.gateway.database.scalar(
                "SELECT targets::int8 FROM push_batches WHERE seq = 0", as: Int64.self)
            #expect(try await e2e.simulator.stats()["accepted"] as? Int == Int(held))
            try e2e.startWorker("next")
            #expect((try await e2e.finished(id)["counts"] as? [String: Int])?["accepted"] == 800)
            #expect(try await e2e.simulator.stats()["accepted"] as? Int == 800)
        }
    }
}
