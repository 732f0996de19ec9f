import Foundation
import NIOCore
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the worker's bulk threads at a lower CPU priority than its express lane's thread.
///
/// During a fan-out the bulk threads (the global pool, the shared event loops) want every core; another app's
/// single update then waits on the express lane's thread for a core. Linux's scheduler gives each thread a share by
/// its nice value and lets a woken thread of a lower nice run before the busy ones: the lane's thread, nice as the
/// process started, runs first; the bulk threads run `offset` levels nicer. Threads are set every second, since
/// the global pool starts threads when it needs them. A process started nicer than 0 keeps its own level for the
/// lane; a thread already nicer than the bulk level is left alone. Linux only; elsewhere it does nothing.
struct BulkThreadPriority: Service {
    /// The express lane's loop: its thread keeps its priority.
    let expressEventLoop: any EventLoop
    /// Nice levels the bulk threads run above the lane's thread (0: off).
    let offset: Int32
    var every: Duration = .seconds(1)

    /// Sets the bulk threads' priority every `every` until the group shuts down. Off (or not on Linux) it only
    /// waits: a service that returns would end the whole group.
    func run() async throws {
        #if os(Linux)
            if self.offset > 0, let lane = try await self.expressEventLoop.submit({ Self.currentThreadID() }).get() {
                let bulk = min(19, Self.nice(of: lane) + self.offset)
                await cancelWhenGracefulShutdown {
                    while !Task.isCancelled {
                        Self.lower(allBut: lane, to: bulk)
                        try? await Task.sleep(for: self.every)
                    }
                }
                return
            }
        #endif
        try? await gracefulShutdown()
    }

    #if os(Linux)
        private static let which = __priority_which_t(PRIO_PROCESS.rawValue)

        /// The calling thread's id (`/proc/thread-self` links to `<pid>/task/<tid>`).
        static func currentThreadID() -> Int32? {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else {
                return nil
            }
            return target.split(separator: "/").last.flatMap { Int32($0) }
        }

        static func nice(of thread: Int32) -> Int32 {
            getpriority(Self.which, id_t(thread))
        }

        /// Sets every thread of the process but `lane` that runs below `level` to it.
        static func lower(allBut lane: Int32, to level: Int32) {
            guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return }
            for case let thread? in tasks.map({ Int32($0) }) where thread != lane && Self.nice(of: thread) < level {
                _ = setpriority(Self.which, id_t(thread), level)  // a thread that ended meanwhile: ESRCH, nothing to do
            }
        }
    #endif
}
