import APNsTransport
import Foundation
import TestSupport
import Testing

/// A pool uses the connections its sends need at the simulator's round trip and advertised streams: one for a
/// small send, more at once for a burst, and back to one (the others closed) after a quiet spell.
@Suite struct APNsClientPoolSizingTests {
    @Test func connectionsFollowWhatTheSendsNeed() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure(["max_concurrent_streams": 500, "latency_ms": 30, "record": false])
            var configuration = sim.clientConfiguration(connections: 8, timeout: .seconds(30))
            configuration.shrinkAfter = .seconds(1)
            try await sim.withClient(configuration) { client in
                // 100 requests: more than the express connection takes (64), no more than the 100 streams a connection is
                // assumed to allow before any answer.
                let small = await client.send(
                    (0..<100).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                #expect(small.filter(\.isAccepted).count == 100)
                #expect(client.connectionsInUse == [1])
                // 3,000 at once with 500 streams a connection: six.
                let burst = await client.send(
                    (0..<3000).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                #expect(burst.filter(\.isAccepted).count == 3000)
                #expect(client.connectionsInUse == [6])
                let open = try await sim.stats()["connections"] as? Int
                #expect(open == 6, "six bulk connections open (the express one was never used)")
                // Quiet: the windows that follow need one; past `shrinkAfter` the pool keeps one and closes five.
                let deadline = ContinuousClock.now + .seconds(20)
                while ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(600))
                    client.resizePools()
                    if client.connectionsInUse == [1], try await sim.stats()["connections"] as? Int == 1 { break }
                }
                #expect(client.connectionsInUse == [1])
                #expect(try await sim.stats()["connections"] as? Int == 1)
                // And it still sends.
                let after = await client.send(
                    (0..<100).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                #expect(after.filter(\.isAccepted).count == 100)
            }
        }
    }
}
