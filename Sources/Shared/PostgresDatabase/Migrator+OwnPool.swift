import Logging
import NIOCore
import PostgresNIO

extension Migrator {
    /// `gateway migrate`: migrates the database at `url` with a small pool of its own, run for exactly as long as the
    /// migration (structured: the pool's task is a child of this call and ends with it).
    ///
    /// PostgresNIO warns when a connection is leased before the pool's `run()` has begun, and a child task has not
    /// necessarily begun when its parent's first query leases. So the two share one serial executor (an event loop):
    /// this task waits until the pool's task has started, and that task, started first, goes on into `run()` (which
    /// marks the pool as running before its first suspension) before this task resumes.
    public static func migrate(_ files: MigrationFiles, url: DatabaseURL, logger: Logger) async throws -> [Int] {
        let database = Database(url: url, maxConnections: 2, logger: logger)
        let executor = EventLoopTaskExecutor(eventLoop: PostgresClient.defaultEventLoopGroup.next())
        return try await withTaskExecutorPreference(executor) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
                    group.addTask(executorPreference: executor) {
                        started.resume()
                        await database.client.run()
                    }
                }
                defer { group.cancelAll() }
                return try await Migrator(database: database).migrate(files)
            }
        }
    }
}
