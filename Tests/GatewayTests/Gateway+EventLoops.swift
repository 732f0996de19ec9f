import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import NIOCore
import NIOPosix
import Testing

@testable import Gateway

/// Request handlers run on the event loop of their connection, not on the global pool (`LoopBoundHTTPChannel`).
@Suite struct GatewayEventLoopTests {
    /// Answers whether the handler ran on an event loop thread of `group`, and on which.
    static func probe(server: HTTPServerBuilder, group: MultiThreadedEventLoopGroup) async throws -> [String] {
        let router = Router()
        router.get("where") { _, _ -> String in
            guard let loop = MultiThreadedEventLoopGroup.currentEventLoop else { return "pool" }
            return group.makeIterator().contains { $0 === loop } ? "loop" : "other loop"
        }
        let app = Application(router: router, server: server, eventLoopGroupProvider: .shared(group))
        return try await app.test(.live) { client in
            var answers: [String] = []
            for _ in 0..<4 {
                let response = try await client.execute(uri: "/where", method: .get)
                answers.append(String(buffer: response.body))
            }
            return answers
        }
    }

    @Test func handlersRunOnTheirConnectionsLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let bound = try await Self.probe(server: .loopBoundHTTP1(), group: group)
        // Hummingbird's own HTTP/1 server, the control: its handlers run on the global pool.
        let unbound = try await Self.probe(server: .http1(), group: group)
        try await group.shutdownGracefully()
        #expect(bound == ["loop", "loop", "loop", "loop"])
        #expect(unbound == ["pool", "pool", "pool", "pool"])
    }
}
