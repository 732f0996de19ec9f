import Logging
import NIOCore
import Synchronization

/// One statement `LostStatementGuard` waits for: the caller's continuation, resumed exactly once (by the statement's
/// answer or the give-up), the statement's task, and the next look at its connection.
final class PendingStatement<Result: Sendable>: Sendable {
    private struct State {
        /// Set before the statement starts; taken by whichever resumes the caller, so nil after that.
        var continuation: CheckedContinuation<Result, any Error>?
        var task: Task<Void, Never>?
        var check: Scheduled<Void>?
        var cancelled = false
    }

    private let state = Mutex(State())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    var isWaiting: Bool { self.state.withLock { $0.continuation != nil } }

    func wait(_ continuation: CheckedContinuation<Result, any Error>) {
        self.state.withLock { $0.continuation = continuation }
    }

    func started(_ task: Task<Void, Never>) {
        let cancel = self.state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancel { task.cancel() }
    }

    func checking(_ check: Scheduled<Void>) {
        let waiting = self.state.withLock { state in
            if state.continuation != nil { state.check = check }
            return state.continuation != nil
        }
        if !waiting { check.cancel() }
    }

    /// The statement's answer or the give-up, whichever comes first, resumes the caller. True for that first one.
    @discardableResult
    func finish(_ result: Swift.Result<Result, any Error>) -> Bool {
        let (continuation, check) = self.state.withLock {
            state -> (CheckedContinuation<Result, any Error>?, Scheduled<Void>?) in
            defer { (state.continuation, state.check) = (nil, nil) }
            return (state.continuation, state.check)
        }
        check?.cancel()
        continuation?.resume(with: result)
        return continuation != nil
    }

    /// The connection closed and the statement never answered: the caller goes on, the statement's task is cancelled.
    func giveUp() {
        guard self.finish(.failure(LostStatementError.connectionClosed)) else { return }
        self.logger.warning("a statement was given up: its connection closed and it was never answered")
        self.state.withLock { $0.task }?.cancel()
    }

    /// The caller was cancelled: so is the statement's task. The caller still waits for the statement's answer, as it
    /// did without the guard (PostgresNIO lets a statement it has sent finish).
    func cancel() {
        let task = self.state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
