import NIOCore

/// Runs tasks on one NIO event loop: the thread of a process's express lane, or (the gateway's pool) the loop of the
/// connection a statement runs on.
///
/// Jobs are enqueued on the loop, in order, and run there. Tasks that prefer this executor (and the I/O of the
/// connections that live on the loop) wait only for each other, not for the bulk work that fills the global pool
/// and the shared event loops.
public final class EventLoopTaskExecutor: TaskExecutor {
    public let eventLoop: any EventLoop

    public init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        self.eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
