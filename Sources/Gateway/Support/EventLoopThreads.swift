import LiveActivitiesCore
import NIOCore
import NIOPosix
import PostgresStore
import ServiceLifecycle

/// The gateway's own event loop group as a `Service`: listed first in the service group, it stops last, once the
/// server and the PostgreSQL pool that run on it have drained, and then ends its threads.
struct EventLoopThreads: Service {
    let group: MultiThreadedEventLoopGroup

    init(count: Int) {
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: count)
    }

    func run() async throws {
        try? await gracefulShutdown()  // or cancellation
        try await self.group.shutdownGracefully()
    }
}
