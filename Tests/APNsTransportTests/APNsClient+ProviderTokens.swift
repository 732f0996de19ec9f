import APNsCommon
import APNsTransport
import Crypto
import Foundation
import NIOConcurrencyHelpers
import TestSupport
import Testing

@Suite struct APNsClientProviderTokenTests {
    @Test func oneTokenServesTenThousandSendsAndIsRefreshedAfterFiftyMinutes() async throws {
        let clock = NIOLockedValueBox(Date())
        let tokens = ProviderTokenCache(now: { clock.withLockedValue { $0 } })
        try await SimulatorHarness.run { sim in
            try await sim.configure(["record": false, "max_concurrent_streams": 100])
            try await sim.withClient(sim.clientConfiguration(timeout: .seconds(120)), tokens: tokens) { client in
                let requests = (0..<10_000).map { sim.request(token: deviceToken($0)) }
                let results = await client.send(requests, credentials: sim.credentials)
                #expect(results.allSatisfy { $0.isAccepted })
                #expect(tokens.mintCount == 1)
                let accepted = try await sim.stats()["accepted"] as? Int
                #expect(accepted == 10_000)

                clock.withLockedValue { $0 = $0.addingTimeInterval(49 * 60) }
                _ = await client.send(sim.request(token: deviceToken(1)), credentials: sim.credentials)
                #expect(tokens.mintCount == 1)
                clock.withLockedValue { $0 = $0.addingTimeInterval(2 * 60) }  // 51 minutes after the first
                #expect(await client.send(sim.request(token: deviceToken(2)), credentials: sim.credentials).isAccepted)
                #expect(tokens.mintCount == 2)
            }
        }
    }

    /// Team and key ids are not secret: an app registered with another app's ids and its own key gets neither that
    /// app's token nor its connections, and cannot spoil them (tokens and pools are keyed by the signing key too).
    @Test func anotherKeyUnderTheSameIdsSharesNothing() async throws {
        let tokens = ProviderTokenCache()
        try await SimulatorHarness.run { sim in
            var impostor = sim.credentials
            impostor.signingKey = APNsSigningKey(privateKey: P256.Signing.PrivateKey())
            try await sim.withClient(tokens: tokens) { client in
                #expect(await client.send(sim.request(token: deviceToken(1)), credentials: sim.credentials).isAccepted)
                let refused = await client.send(
                    (0..<10).map { sim.request(token: deviceToken($0)) }, credentials: impostor)
                #expect(refused.allSatisfy { !$0.isAccepted })
                #expect(tokens.mintCount == 2)
                let genuine = await client.send(
                    (0..<10).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                #expect(genuine.allSatisfy { $0.isAccepted })
                #expect(tokens.mintCount == 2)
                let stats = try await sim.stats()
                #expect(stats["accepted"] as? Int == 11)
                #expect((stats["rejected"] as? [String: Int])?["InvalidProviderToken"] == 10)
            }
        }
    }

    /// A pool no send took for the idle time is closed (a key replaced or deleted is never taken again); the next
    /// send opens a new one.
    @Test func idlePoolsAreClosed() async throws {
        try await SimulatorHarness.run { sim in
            var other = sim.credentials
            other.signingKey = APNsSigningKey(privateKey: P256.Signing.PrivateKey())
            try await sim.withClient { client in
                #expect(await client.send(sim.request(token: deviceToken(1)), credentials: sim.credentials).isAccepted)
                _ = await client.send(sim.request(token: deviceToken(2)), credentials: other)
                #expect(client.poolCount == 2)
                #expect(await client.closeIdlePools(idle: .seconds(3600)) == 0)
                try await Task.sleep(for: .milliseconds(50))  // the idleness under test: both pools unused > 10 ms
                #expect(await client.closeIdlePools(idle: .milliseconds(10)) == 2)
                #expect(client.poolCount == 0)
                #expect(await client.send(sim.request(token: deviceToken(3)), credentials: sim.credentials).isAccepted)
                #expect(client.poolCount == 1)
            }
        }
    }

    @Test func anExpiredProviderTokenIsReMintedOnceAndTheRequestRetried() async throws {
        // The first token is minted with an iat 61 minutes ago, as if the process had slept; later ones now.
        let calls = NIOLockedValueBox(0)
        let tokens = ProviderTokenCache(now: {
            calls.withLockedValue { n in
                n += 1
                return n == 1 ? Date().addingTimeInterval(-61 * 60) : Date()
            }
        })
        try await SimulatorHarness.run { sim in
            try await sim.withClient(tokens: tokens) { client in
                let results = await client.send(
                    (0..<20).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                #expect(results.allSatisfy { $0.isAccepted })
                #expect(tokens.mintCount == 2)
                let stats = try await sim.stats()
                #expect(stats["accepted"] as? Int == 20)
                // One stream until authenticated: the expired token was refused exactly once, on that one stream.
                #expect((stats["rejected"] as? [String: Int])?["ExpiredProviderToken"] == 1)
            }
        }
    }

    /// A key APNs does not accept: a new token would not mend it, and APNs answers TooManyProviderTokenUpdates to
    /// tokens refreshed too often. So a refused token is replaced only once it is a minute old, however many
    /// requests APNs refuses.
    @Test func aKeyAPNsRefusesGetsANewTokenAtMostOnceAMinute() async throws {
        let clock = NIOLockedValueBox(Date())
        let tokens = ProviderTokenCache(now: { clock.withLockedValue { $0 } })
        try await SimulatorHarness.run { sim in
            var stranger = sim.credentials
            stranger.keyID = "STRANGER01"
            let refused = Result<APNsOutcome, APNsTransportError>.success(
                .rejected(status: 403, reason: .invalidProviderToken, timestamp: nil))
            func askedAPNs() async throws -> Int {
                (try await sim.stats()["rejected"] as? [String: Int])?["InvalidProviderToken"] ?? 0
            }
            try await sim.withClient(sim.clientConfiguration(connections: 2), tokens: tokens) { client in
                let first = await client.send(
                    (0..<100).map { sim.request(token: deviceToken($0)) }, credentials: stranger)
                #expect(first.allSatisfy { $0 == refused })
                #expect(tokens.mintCount == 1)
                #expect(try await askedAPNs() == 100)  // each asked once: no retry with the same young key

                clock.withLockedValue { $0 = $0.addingTimeInterval(61) }
                let later = await client.send(
                    (0..<20).map { sim.request(token: deviceToken($0)) }, credentials: stranger)
                #expect(later.allSatisfy { $0 == refused })
                #expect(tokens.mintCount == 2)  // one new token, however many requests and connections
                let askedLater = try await askedAPNs() - 100
                #expect((20...22).contains(askedLater), "APNs asked \(askedLater) times for 20 notifications")
            }
        }
    }
}
