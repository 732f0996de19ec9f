import Foundation
import HummingbirdTesting
import Testing

@Suite struct PushDeliveryCancelTests {
    /// A DELETE during the fan-out stops every batch after the chunk it has in flight. The DELETE answers what was
    /// left at that moment; chunks that were in flight then are counted as sent once recorded, so in the end every
    /// target is sent or canceled, never both, and APNs saw exactly the sent ones.
    @Test func aCancelMidFanOutStopsTheBatchesAndEveryTargetIsSentOrCanceled() async throws {
        let environment = ["PUSH_BATCH_SIZE": "200", "PUSH_CHUNK_SIZE": "50", "WORKER_CONCURRENCY": "2"]
        try await EndToEndHarness.run(environment: environment) { e2e in
            let (id, sent, canceled) = try await Self.cancelMidFanOut(e2e, activities: 1000)
            let answered = canceled.json["canceled"] as? Int ?? -1
            #expect(answered > 0 && answered <= 1000 - sent, "\(canceled.text)")

            // The chunks in flight at the DELETE settle: sent + canceled reaches the target count, and stays there.
            var counts: [String: Int] = [:]
            for _ in 0..<200 {
                counts = try await Self.counts(e2e, id)
                if (counts["sent"] ?? 0) + (counts["canceled"] ?? 0) == 1000 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            // A negative check: the counts stay there (a chunk in flight answers within ~100 ms).
            try await Task.sleep(for: .milliseconds(300))
            counts = try await Self.counts(e2e, id)
            #expect(counts["targeted"] == 1000)
            #expect((counts["sent"] ?? 0) + (counts["canceled"] ?? 0) == 1000, "\(counts)")
            #expect((counts["canceled"] ?? 0) <= answered, "\(counts), the DELETE answered \(answered)")
            // At most one chunk per job slot (two workers, two slots each) was in flight at the DELETE.
            #expect((counts["canceled"] ?? 0) >= answered - 2 * 2 * 50, "\(counts): more than the chunks in flight")
            let seen = try await e2e.acceptedByToken().values.reduce(0, +)
            #expect(seen == counts["accepted"], "APNs accepted \(seen), the report says \(counts)")
            let report = try await e2e.finished(id)
            #expect(report["state"] as? String == "canceled")
        }
    }

    /// The same with batches cut from the first chunk's spread (`BatchPlan.estimated`): the DELETE cancels the
    /// estimate of what was left, and once the chunks in flight settle, what was sent and canceled is `targeted`.
    @Test func aCancelOfAnEstimatedFanOutStillAccountsForEveryTarget() async throws {
        let environment = ["PUSH_BATCH_SIZE": "200", "PUSH_CHUNK_SIZE": "100", "WORKER_CONCURRENCY": "2"]
        try await EndToEndHarness.run(environment: environment) { e2e in
            let (id, _, canceled) = try await Self.cancelMidFanOut(e2e, activities: 2000)
            #expect((canceled.json["canceled"] as? Int ?? -1) > 0, "\(canceled.text)")

            // Settled: the counts add up and stay the same for 500 ms (a chunk in flight answers within ~100 ms).
            var counts: [String: Int] = [:]
            var unchanged = 0
            for _ in 0..<200 where unchanged < 10 {
                try await Task.sleep(for: .milliseconds(50))
                let before = counts
                counts = try await Self.counts(e2e, id)
                let addsUp = (counts["sent"] ?? 0) + (counts["canceled"] ?? 0) == counts["targeted"]
                unchanged = counts == before && addsUp ? unchanged + 1 : 0
            }
            #expect((counts["sent"] ?? 0) + (counts["canceled"] ?? 0) == counts["targeted"], "\(counts)")
            #expect((1000...3000).contains(counts["targeted"] ?? 0), "an estimate of 2,000: \(counts)")
            let seen = try await e2e.acceptedByToken().values.reduce(0, +)
            #expect(seen == counts["accepted"], "APNs accepted \(seen), the report says \(counts)")
            let rows = try await e2e.gateway.database.client.query(
                "SELECT bool_and(targets_estimated), sum(targets)::int8 FROM push_batches",
                logger: e2e.gateway.database.logger)
            for try await (estimated, targets) in rows.decode((Bool, Int64).self) {
                #expect(estimated && Int(targets) == counts["targeted"], "the batches add up to the push")
            }
        }
    }

    /// Seeds `activities`, sends an update answered after 100 ms each, and DELETEs it once some were sent: the push,
    /// how many were sent before, and the DELETE's answer.
    static func cancelMidFanOut(_ e2e: EndToEndHarness, activities: Int) async throws
        -> (id: String, sent: Int, canceled: TestResponse)
    {
        try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: activities)
        try await e2e.simulator.configure(["latency_ms": 100])
        let id = try await e2e.send(PushDeliveryFailureTests.update(1_700_000_001))
        var sent = 0
        for _ in 0..<300 where sent == 0 {
            try await Task.sleep(for: .milliseconds(20))
            sent = try await Self.counts(e2e, id)["sent"] ?? 0
        }
        #expect(sent > 0, "nothing was sent before the cancel")
        let canceled = try await e2e.gateway.request(.delete, "/api/pushes/\(id)", auth: e2e.app.server)
        return (id, sent, canceled)
    }

    static func counts(_ e2e: EndToEndHarness, _ id: String) async throws -> [String: Int] {
        let report = try await e2e.gateway.request(.get, "/api/pushes/\(id)", auth: e2e.app.server)
        return (report.json["push"] as? [String: Any])?["counts"] as? [String: Int] ?? [:]
    }
}
