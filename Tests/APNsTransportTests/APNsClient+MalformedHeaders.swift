import APNsTransport
import Foundation
import NIOCore
import TestSupport
import Testing

@Suite struct APNsClientMalformedHeaderTests {
    /// The simulator checks HTTP/2's header rules itself (NIO's validation is off on both sides): a request breaking
    /// them is reset with PROTOCOL_ERROR, never counted as delivered, and the connection's other streams carry on.
    @Test func aMalformedHeaderResetsItsStreamOnly() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.withClient { client in
                var bad = sim.request(token: deviceToken(1))
                bad.collapseID = "line\r\nbreak"
                let results = await client.send(
                    [sim.request(token: deviceToken(0)), bad, sim.request(token: deviceToken(2))],
                    credentials: sim.credentials)
                #expect(results[0].isAccepted && results[2].isAccepted, "\(results)")
                #expect(results[1] == .failure(.connectionLost), "\(results[1])")
                let stats = try await sim.stats()
                #expect(stats["accepted"] as? Int == 2, "\(stats)")
                #expect((stats["rejected"] as? [String: Any])?.isEmpty == true, "\(stats)")
            }
        }
    }
}
