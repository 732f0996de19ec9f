import APNsTransport
import Foundation
import TestSupport
import Testing

@Suite struct APNsClientStreamTests {
    @Test func theAdvertisedStreamLimitIsNeverExceeded() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure(["max_concurrent_streams": 50, "latency_ms": 10, "record": false])
            try await sim.withClient(sim.clientConfiguration(connections: 2, timeout: .seconds(60))) { client in
                let results = await client.send(
                    (0..<1500).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                let failed = results.filter { !$0.isAccepted }
                #expect(failed.isEmpty, "\(failed.count) failed, e.g. \(failed.prefix(2))")
            }
            let stats = try await sim.stats()
            #expect(stats["max_streams_in_flight"] as? Int == 50)  // used to the limit, never past it
        }
    }

    @Test func anUnauthenticatedConnectionUsesOneStream() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure(["latency_ms": 5])
            // A key the simulator does not trust: every request is InvalidProviderToken, so never authenticated.
            var stranger = sim.credentials
            stranger.keyID = "STRANGER01"
            try await sim.withClient { client in
                let results = await client.send(
                    (0..<40).map { sim.request(token: deviceToken($0)) }, credentials: stranger)
                let other = results.filter {
                    $0 != .success(.rejected(status: 403, reason: .invalidProviderToken, timestamp: nil))
                }
                #expect(other.isEmpty, "\(other.count) other results, e.g. \(other.prefix(2))")
            }
            #expect(try await sim.stats()["max_streams_in_flight"] as? Int == 1)
        }
    }

    /// With the default configuration the server's advertised limit governs: 300 streams in flight on a connection,
    /// where a fixed cap of 100 used to hold a fan-out at a third of what the server allows.
    @Test func streamsFollowTheLimitTheServerAdvertises() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure(["max_concurrent_streams": 300, "latency_ms": 50, "record": false])
            try await sim.withClient(sim.clientConfiguration(connections: 1, timeout: .seconds(30))) { client in
                // One request first: until a provider token is accepted a connection gets one stream.
                _ = await client.send([sim.request(token: deviceToken(0))], credentials: sim.credentials)
                let results = await client.send(
                    (1...1200).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                let accepted = results.filter(\.isAccepted).count
                #expect(accepted == 1200)
                let most = try await sim.stats()["max_streams_in_flight"] as? Int ?? 0
                #expect(most > 100 && most <= 300, "\(most) streams in flight at most")
            }
        }
    }

    /// The simulator's latency knob holds every answer back at least that long, however many fall due together (they
    /// share one timer and one write per connection).
    @Test func answersWaitOutTheSimulatorsLatency() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure(["latency_ms": 200, "record": false])
            try await sim.withClient(sim.clientConfiguration(connections: 1, timeout: .seconds(30))) { client in
                _ = await client.send([sim.request(token: deviceToken(0))], credentials: sim.credentials)
                let started = ContinuousClock.now
                let results = await client.send(
                    (1...300).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                let elapsed = ContinuousClock.now - started
                #expect(results.filter(\.isAccepted).count == 300)
                #expect(elapsed >= .milliseconds(200) && elapsed < .seconds(5), "\(elapsed)")
            }
        }
    }

    /// With 100 and with 1,000 streams in flight when the GOAWAY comes.
    @Test(arguments: [(streams: 100, goawayAfter: 300, count: 1500), (streams: 1000, goawayAfter: 1200, count: 3000)])
    func aGoawayMidBurstStillDeliversEveryRequestExactlyOnce(streams: Int, goawayAfter: Int, count: Int) async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure([
                "goaway_after_streams": goawayAfter, "latency_ms": 2, "max_concurrent_streams": streams,
                "record": false,
            ])
            var configuration = sim.clientConfiguration(connections: 2, timeout: .seconds(60))
            configuration.maxConcurrentStreams = streams
            try await sim.withClient(configuration) { client in
                let results = await client.send(
                    (0..<count).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                let failures = Dictionary(grouping: results.filter { !$0.isAccepted }, by: { "\($0)" }).mapValues(
                    \.count)
                #expect(failures.isEmpty)
                let stats = try await sim.stats()
                #expect(stats["accepted"] as? Int == count)
                #expect((stats["connections_total"] as? Int ?? 0) > 2)  // connections were replaced
                #expect((stats["max_streams_in_flight"] as? Int ?? 0) > streams / 2)  // connections ran (nearly) full
                for n in stride(from: 0, to: count, by: 97) {
                    let token = try await sim.stats(token: deviceToken(n))["token"] as? [String: Any]
                    #expect(token?["accepted"] as? Int == 1)
                }
            }
        }
    }

    /// A connection that drops without GOAWAY loses only the streams it had in flight (delivered or not, nobody can
    /// tell); the requests still waiting for a stream were never written and go out on the next connection.
    @Test func aDroppedConnectionFailsOnlyWhatWasInFlight() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure(["max_concurrent_streams": 5, "drop_after_streams": 20, "latency_ms": 5])
            try await sim.withClient(sim.clientConfiguration(connections: 1, timeout: .seconds(30))) { client in
                let results = await client.send(
                    (0..<200).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                let accepted = results.filter(\.isAccepted).count
                let lost = results.filter { $0 == .failure(.connectionLost) }.count
                let other = results.filter { !$0.isAccepted && $0 != .failure(.connectionLost) }
                #expect(other.isEmpty, "\(other.count) other results, e.g. \(other.prefix(2))")
                // Every connection drops at its 20th stream with at most 5 in flight: about 15 of 20 get through.
                let stats = try await sim.stats()
                let connections = stats["connections_total"] as? Int ?? 0
                #expect(lost <= 5 * connections, "\(lost) lost over \(connections) connections")
                #expect(accepted >= 120, "\(accepted) accepted, \(lost) lost over \(connections) connections")
                #expect(stats["accepted"] as? Int ?? 0 >= accepted)
            }
        }
    }
}
