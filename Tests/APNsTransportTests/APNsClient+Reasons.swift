import APNsTransport
import Foundation
import NIOCore
import TestSupport
import Testing

@Suite struct APNsClientReasonTests {
    @Test func everyAPNsReasonComesBackTypedWithItsAction() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.withClient { client in
                for (index, reason) in APNsReason.allKnown.enumerated() {
                    try await sim.configure(["failure_rates": [reason.name: 1.0]])
                    let result = await client.send(sim.request(token: deviceToken(index)), credentials: sim.credentials)
                    guard case .success(.rejected(let status, let got, _)) = result else {
                        Issue.record("\(reason): \(result)")
                        continue
                    }
                    #expect(got == reason)
                    #expect(status == reason.status)
                }
                try await sim.configure(["failure_rates": [String: Double]()])
                #expect(
                    await client.send(sim.request(token: deviceToken(999)), credentials: sim.credentials).isAccepted)
            }
        }
    }

    @Test func answersWithBodiesBeyondTheConnectionWindowDoNotStall() async throws {
        // 2,500 rejections carry ~80 KB of JSON bodies, more than HTTP/2's initial 64 KiB connection window:
        // the client must return the credit (WINDOW_UPDATE) or the server stops answering.
        try await SimulatorHarness.run { sim in
            try await sim.configure(["failure_rates": ["BadDeviceToken": 1.0], "record": false])
            try await sim.withClient(sim.clientConfiguration(connections: 1, timeout: .seconds(60))) { client in
                let results = await client.send(
                    (0..<2500).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                let dropped = results.filter {
                    if case .success(.rejected(400, .badDeviceToken, _)) = $0 { return true }
                    return false
                }
                let others = results.filter {
                    if case .success(.rejected(400, .badDeviceToken, _)) = $0 { return false }
                    return true
                }
                // Without the WINDOW_UPDATEs the tail of the batch waits until its deadline.
                #expect(!others.contains(.failure(.deadlineExceeded)))
                #expect(dropped.count == 2500, "\(others.prefix(3))")
            }
        }
    }

    @Test func unregisteredTokensAreDropTokenWithATimestamp() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure(["unregistered_tokens": [deviceToken(7)]])
            try await sim.withClient { client in
                let result = await client.send(sim.request(token: deviceToken(7)), credentials: sim.credentials)
                guard case .success(.rejected(410, let reason, let timestamp)) = result else {
                    Issue.record("\(result)")
                    return
                }
                #expect(reason == .unregistered && reason.action == .dropToken && timestamp != nil)
            }
        }
    }

    @Test func anOversizedPayloadIsPayloadTooLarge() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.withClient { client in
                let result = await client.send(
                    sim.request(token: deviceToken(1), body: Payloads.oversized()), credentials: sim.credentials)
                #expect(result == .success(.rejected(status: 413, reason: .payloadTooLarge, timestamp: nil)))
            }
        }
    }

    @Test func aWrongTopicIsAConfigurationError() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.withClient { client in
                let noSuffix = await client.send(
                    sim.request(token: deviceToken(1), topic: SimulatorHarness.bundleID), credentials: sim.credentials)
                let otherApp = await client.send(
                    sim.request(token: deviceToken(2), topic: "com.other.app.push-type.liveactivity"),
                    credentials: sim.credentials)
                for result in [noSuffix, otherApp] {
                    guard case .success(.rejected(_, let reason, _)) = result else {
                        Issue.record("\(result)")
                        continue
                    }
                    #expect(reason.action == .configuration)
                }
            }
        }
    }

    @Test func aStalledServerFailsRequestsAtTheirDeadline() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure(["stall": true])
            try await sim.withClient(sim.clientConfiguration(timeout: .milliseconds(500))) { client in
                let started = ContinuousClock.now
                let results = await client.send(
                    (0..<5).map { sim.request(token: deviceToken($0)) }, credentials: sim.credentials)
                let elapsed = ContinuousClock.now - started
                #expect(results.allSatisfy { $0 == .failure(.deadlineExceeded) })
                #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(5))
            }
        }
    }
}

extension APNsClient.Result {
    var isAccepted: Bool {
        if case .success(let outcome) = self { return outcome.isAccepted }
        return false
    }
}
