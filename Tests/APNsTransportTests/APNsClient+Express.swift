import APNsTransport
import Foundation
import Synchronization
import TestSupport
import Testing

/// A small send does not queue behind a fan-out's streams: it has a connection of its own in the pool.
@Suite struct APNsClientExpressTests {
    @Test func aSmallSendOvertakesABulkSendInFlight() async throws {
        try await SimulatorHarness.run { sim in
            // 2 bulk connections x 10 streams, 50 ms per answer: 400 requests take about a second.
            try await sim.configure(["max_concurrent_streams": 10, "latency_ms": 50, "record": false])
            try await sim.withClient(sim.clientConfiguration(connections: 2, timeout: .seconds(60))) { client in
                let bulkDone = Atomic<Bool>(false)
                async let bulk: [APNsClient.Result] = {
                    defer { bulkDone.store(true, ordering: .sequentiallyConsistent) }
                    return await client.send(
                        (0..<400).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                }()
                // The bulk send well under way: answers coming back, most of it still to go.
                _ = try await until("the bulk send under way", timeout: .seconds(10)) {
                    try await sim.stats()["accepted"] as? Int ?? 0 >= 40 ? true : nil
                }
                let single = await client.send(sim.request(token: deviceToken(10_000)), credentials: sim.credentials)
                let bulkWasDone = bulkDone.load(ordering: .sequentiallyConsistent)
                let answeredBefore = try await sim.stats()["accepted"] as? Int ?? 0
                #expect(single.isAccepted)
                #expect(!bulkWasDone)  // answered while the bulk send still waits
                // Queued behind its connection's share of the bulk (200), it would come after 300 or more answers.
                #expect(answeredBefore < 300, "\(answeredBefore) bulk requests were answered first")
                #expect(await bulk.allSatisfy(\.isAccepted))
            }
            #expect(try await sim.stats()["connections_total"] as? Int == 3)  // two bulk connections and the express one
        }
    }
}
