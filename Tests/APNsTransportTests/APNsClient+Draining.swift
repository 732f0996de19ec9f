import APNsTransport
import Foundation
import TestSupport
import Testing

/// A connection let go after GOAWAY keeps its streams in flight until they end (RFC 9113 §6.8: streams up to the
/// last one processed "might still complete"). If the server never answers them, their deadlines and a shutdown
/// must still end them, and the connection must close. The simulator itself closes such a connection 5 s after its
/// GOAWAY; each test waits 3 s at most, so only the client's own doing passes it.
@Suite struct APNsClientDrainingTests {
    actor Outcome {
        var results: [APNsClient.Result]?
        func set(_ results: [APNsClient.Result]) { self.results = results }
    }

    /// One accepted request (a connection takes one stream until then), then ten more that the server never answers,
    /// the tenth of which brings a GOAWAY.
    func stallAfterGoaway(_ sim: SimulatorHarness, _ client: APNsClient) async throws -> [APNsClient.Result] {
        let first = await client.send([sim.request(token: deviceToken(0))], credentials: sim.credentials)
        #expect(first.allSatisfy { $0.isAccepted })
        try await sim.configure(["stall": true])
        return await client.send((1...10).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
    }

    @Test func streamsLeftOnADrainingConnectionAreResetAtTheirDeadlineAndItCloses() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure(["goaway_after_streams": 11, "max_concurrent_streams": 50, "record": false])
            try await sim.withClient(sim.clientConfiguration(connections: 1, timeout: .seconds(1))) { client in
                let results = try await self.stallAfterGoaway(sim, client)
                #expect(results.allSatisfy { $0 == .failure(.deadlineExceeded) }, "\(results)")
                // Reset, the streams end; with none left the client closes the connection (it used to wait for the
                // server to).
                let closed = try await eventually(timeout: .seconds(3)) {
                    try await sim.stats()["connections"] as? Int == 0
                }
                let stats = try await sim.stats()
                #expect(closed, "\(stats)")
            }
        }
    }

    @Test func aShutdownEndsStreamsLeftOnADrainingConnection() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure(["goaway_after_streams": 11, "max_concurrent_streams": 50, "record": false])
            let client = try APNsClient(
                configuration: sim.clientConfiguration(connections: 1, timeout: .seconds(600)),
                logger: TestEnvironment.quietLogger)
            let outcome = Outcome()
            let sending = Task { await outcome.set(try await self.stallAfterGoaway(sim, client)) }
            let draining = try await eventually(timeout: .seconds(10)) {
                try await sim.stats()["max_streams_in_flight"] as? Int ?? 0 >= 10
            }
            #expect(draining)
            await client.shutdown()
            // At once, not when the server closes (the deadline tick stops at shutdown; the connection used to stay).
            let ended = try await eventually(timeout: .seconds(3)) { await outcome.results != nil }
            #expect(ended)
            if ended { try await sending.value }
            let results = await outcome.results ?? []
            #expect(results.allSatisfy { $0 == .failure(.connectionLost) }, "\(results)")
        }
    }
}
