import Logging
import NIOCore
import PostgresNIO

/// Bounds the wait for a statement whose connection closed under it.
///
/// PostgresNIO (1.33) writes a statement to its connection's channel without a write promise. On a connection the
/// server has just closed (`pg_terminate_backend`, a restart, a failover), whose handlers NIO has already removed, that
/// write fails silently: the statement's promise is never completed and its caller waits forever. A pool lease handed
/// out between the server's goodbye and the pool learning of the close does exactly that: a worker's job waited for
/// the claim of its batch until the test gave up, its lease kept alive by the heartbeat
/// (`PushDeliveryFaultTests.connectionsTerminatedMidFanOutLoseNothing`). `DatabaseLostStatementTests` checks that
/// PostgresNIO still loses such a statement: when it no longer does, this guard can go.
///
/// The statement runs in a task of its own, and its caller waits for the statement's answer or for the connection's
/// close, whichever comes first. A statement still unanswered `grace` after its connection was seen closed (at most
/// `checkInterval + grace` after the close) is given up with `LostStatementError` and a warning. Its task is cancelled,
/// which PostgresNIO ignores: a lost statement's task stays suspended, a few hundred bytes, for the rest of the process.
/// A statement on an open connection is never given up, however long it takes (`statement_timeout` bounds those).
enum LostStatementGuard {
    /// How often a waiting statement's connection is looked at.
    static let checkInterval: TimeAmount = .seconds(1)
    /// How long a statement may still answer once its connection is seen closed: one that failed with the connection is
    /// reported at once, and only its task's scheduling separates that report from the close.
    static let grace: TimeAmount = .milliseconds(500)

    /// Runs `statement` on `executor` (nil: the global pool), the caller's wait bounded as above.
    static func run<Result: Sendable>(
        on connection: PostgresConnection, executor: (any TaskExecutor)?, logger: Logger,
        checkInterval: TimeAmount = Self.checkInterval, grace: TimeAmount = Self.grace,
        _ statement: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        // A connection already closed answers nothing written to it now.
        guard !connection.isClosed else { throw LostStatementError.connectionClosed }
        let pending = PendingStatement<Result>(logger: logger)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                pending.wait(continuation)
                pending.started(
                    Task(executorPreference: executor) {
                        do {
                            pending.finish(.success(try await statement()))
                        } catch {
                            pending.finish(.failure(error))
                        }
                    })
                Self.check(pending, connection, after: checkInterval, grace: grace, closedBefore: false)
            }
        } onCancel: {
            pending.cancel()
        }
    }

    /// Looks at the connection every `after` until the statement has answered; gives it up `grace` after it saw the
    /// connection closed, or when the connection's event loop has shut down (no look can be scheduled there).
    private static func check<Result: Sendable>(
        _ pending: PendingStatement<Result>, _ connection: PostgresConnection, after: TimeAmount, grace: TimeAmount,
        closedBefore: Bool
    ) {
        let scheduled = connection.eventLoop.scheduleTask(in: closedBefore ? grace : after) {
            guard pending.isWaiting else { return }
            if closedBefore {
                pending.giveUp()
            } else {
                Self.check(pending, connection, after: after, grace: grace, closedBefore: connection.isClosed)
            }
        }
        scheduled.futureResult.whenFailure { error in
            if (error as? EventLoopError) == .shutdown { pending.giveUp() }
        }
        pending.checking(scheduled)
    }
}

/// A statement given up by `LostStatementGuard`: its connection closed and it never answered.
public enum LostStatementError: Error, CustomStringConvertible {
    case connectionClosed

    public var description: String { "the database connection closed and the statement was never answered" }
}
