import Foundation
import LiveActivitiesCore
import Logging
import NIOCore
import NIOPosix
import PostgresDatabase
import ServiceLifecycle

/// A process's lane for latency-sensitive work: a thread of its own, a small PostgreSQL pool whose connections
/// live on that thread, and a task executor on it.
///
/// During a million-device fan-out a worker's shared event loops and global pool are busy with chunks of
/// thousands of rows and APNs requests. A claim or another app's single update queued behind them took
/// tens of milliseconds per statement; on this lane it waits for none of them.
///
/// It is a `Service`: list it before the services that use it, so that it stops after them and then ends its
/// thread.
public struct ExpressLane: Service {
    public let executor: EventLoopTaskExecutor
    public let database: Database
    private let group: MultiThreadedEventLoopGroup

    /// `maxConnections`: the lane's own PostgreSQL connections, opened at start.
    public init(url: DatabaseURL, maxConnections: Int, logger: Logger) {
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.executor = EventLoopTaskExecutor(eventLoop: self.group.next())
        #if os(Linux)
            // Named for `top -H` and `ps -L`, and for the worker's `BulkThreadPriority` test (a thread's name is its
            // `comm` file; `pthread_setname_np` is not in Swift's Glibc module).
            self.executor.eventLoop.execute {
                try? Self.threadName.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            }
        #endif
        self.database = Database(
            url: url, maxConnections: maxConnections, keepsOneOpen: true, eventLoopGroup: self.group,
            executor: self.executor, logger: logger)
    }

    public var eventLoop: any EventLoop { self.executor.eventLoop }

    /// The lane's thread's name (at most 15 bytes, Linux's limit).
    public static let threadName = "express-lane"

    /// Runs the lane's pool until the group shuts down, then ends the lane's thread.
    public func run() async throws {
        // The pool's own background work (connections opened, handed over, kept alive) runs on the lane too.
        await withTaskExecutorPreference(self.executor) {
            await self.database.client.run()  // until graceful shutdown
        }
        try await self.group.shutdownGracefully()
    }
}
