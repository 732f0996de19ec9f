import Foundation
import NIOCore
import NIOPosix
import Testing

/// A client that trickles its request headers holds a connection for the header timeout at most.
@Suite struct GatewayConnectionTests {
    @Test func aTrickledRequestHeadIsCutOffAtTheHeaderTimeout() async throws {
        try await GatewayHarness.run(headerTimeout: 1) { gw in
            let port = try #require(gw.client.port)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port).get()
            let start = ContinuousClock.now
            try await channel.writeAndFlush(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: x\r\n"))
            // One header byte every 200 ms: never idle, never complete.
            while channel.isActive, ContinuousClock.now < start + .seconds(5) {
                do { try await channel.writeAndFlush(ByteBuffer(string: "X")) } catch { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            let held = ContinuousClock.now - start
            #expect(!channel.isActive, "the connection was still open after \(held)")
            #expect(held < .seconds(3), "closed after \(held)")
            try? await channel.close()
        }
    }

    /// An idle keep-alive connection is closed the header timeout after its last response; a request in between
    /// moves the deadline to the timeout after its own response (the timer, set for the first, sets itself again).
    @Test func anIdleConnectionIsClosedTheHeaderTimeoutAfterItsLastResponse() async throws {
        try await GatewayHarness.run(headerTimeout: 1) { gw in
            let port = try #require(gw.client.port)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port).get()
            let request = ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            try await channel.writeAndFlush(request)
            try await Task.sleep(for: .milliseconds(700))
            let second = ContinuousClock.now
            try await channel.writeAndFlush(request)
            // Past the first request's deadline, within the second's.
            try await Task.sleep(until: second + .milliseconds(600))
            #expect(channel.isActive, "closed at the first request's deadline")
            try await until("the idle connection closed", timeout: .seconds(5)) { channel.isActive ? nil : () }
            let held = ContinuousClock.now - second
            #expect(held >= .seconds(1) && held < .seconds(3), "closed \(held) after the second request")
            try? await channel.close()
        }
    }
}
