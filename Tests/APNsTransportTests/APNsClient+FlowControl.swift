import APNsTransport
import NIOCore
import TestSupport
import Testing

@Suite struct APNsClientFlowControlTests {
    @Test func requestBodiesBeyondTheServersWindowWaitForItsCredit() async throws {
        // 100 streams of ~4 KB bodies are ~400 KB in flight on one connection; the server opens with HTTP/2's
        // 64 KiB connection window. The client must hold bodies back until WINDOW_UPDATE grants room: one byte
        // past the window and the server ends the connection with FLOW_CONTROL_ERROR.
        let filler = String(repeating: "x", count: 3900)
        let body = ByteBuffer(
            string: #"{"aps":{"timestamp":1790000000,"event":"update","content-state":{"pad":"\#(filler)"}}}"#)
        try await SimulatorHarness.run { sim in
            try await sim.configure([
                "record": false, "max_concurrent_streams": 100, "latency_ms": 5, "small_window": true,
            ])
            try await sim.withClient(sim.clientConfiguration(connections: 1, timeout: .seconds(30))) { client in
                let results = await client.send(
                    (0..<600).map { sim.request(token: deviceToken($0), body: body) }, credentials: sim.credentials)
                let failed = results.filter { !$0.isAccepted }
                #expect(failed.isEmpty, "\(failed.count) failed, e.g. \(failed.prefix(2))")
            }
            let stats = try await sim.stats()
            #expect(stats["accepted"] as? Int == 600)
            #expect(stats["connections_total"] as? Int == 1)  // never a connection error
            #expect((stats["max_streams_in_flight"] as? Int ?? 0) > 10)
        }
    }
}
