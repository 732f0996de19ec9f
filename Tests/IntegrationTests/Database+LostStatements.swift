import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import PostgresDatabase
@testable import PostgresStore

/// `LostStatementGuard`: why it exists (PostgresNIO loses a statement written to a connection the server has closed)
/// and what it does (gives such a statement up once its connection is seen closed, never one on an open connection).
@Suite struct DatabaseLostStatementTests {
    static let logger = TestEnvironment.quietLogger

    static func connect() async throws -> PostgresConnection {
        let url = try TestEnvironment.serverURL()
        return try await PostgresConnection.connect(
            configuration: .init(
                host: url.host, port: url.port, username: url.username, password: url.password,
                database: url.database, tls: .disable),
            id: 1, logger: Self.logger)
    }

    /// Runs `body` with a new connection and closes it however `body` ends: PostgresNIO asserts (debug builds) that a
    /// connection is closed before it goes, and a server-terminated one may not have seen its socket close yet.
    static func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await Self.connect()
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    enum Outcome {
        case answered
        case failed(any Error)
        case waiting
    }

    /// Runs `statement` in a task of its own and waits at most `limit` for it: a statement that is lost never returns.
    static func outcome(within limit: Duration, _ statement: @escaping @Sendable () async throws -> Void) async throws
        -> Outcome
    {
        let result = Mutex<Result<Void, any Error>?>(nil)
        Task {
            do {
                try await statement()
                result.withLock { $0 = .success(()) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
        }
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            switch result.withLock({ $0 }) {
            case .success: return .answered
            case .failure(let error): return .failed(error)
            case nil: try await Task.sleep(for: .milliseconds(10))
            }
        }
        return .waiting
    }

    /// The reason for the guard. When this fails, PostgresNIO answers such a statement itself: the guard can go.
    /// (The statement's task stays suspended for the rest of the test process: that is the defect.)
    @Test func postgresNIOLosesAStatementWrittenToAClosedConnection() async throws {
        try await Self.withConnection { connection in
            try await connection.close()
            let unguarded = try await Self.outcome(within: .seconds(2)) {
                try await connection.query("SELECT 1", logger: Self.logger)
            }
            guard case .waiting = unguarded else {
                Issue.record(
                    "PostgresNIO now answers a statement on a closed connection (\(unguarded)): the guard can go")
                return
            }
            // Through the guard, the same statement fails at once.
            let guarded = try await Self.outcome(within: .seconds(5)) {
                try await DatabaseConnection(connection, executor: nil).query("SELECT 1", logger: Self.logger)
            }
            guard case .failed(let error) = guarded else { throw TestSetupError("guarded: \(guarded)") }
            #expect(error is LostStatementError, "\(error)")
        }
    }

    /// A statement that never answers (as one whose write was lost) is given up once its connection has closed, and
    /// its task cancelled.
    @Test func aStatementUnansweredAfterItsConnectionClosedIsGivenUp() async throws {
        try await Self.withConnection { connection in
            let cancelled = Mutex(false)
            let running = Mutex(false)
            async let outcome = Self.outcome(within: .seconds(10)) {
                try await LostStatementGuard.run(
                    on: connection, executor: nil, logger: Self.logger, checkInterval: .milliseconds(100),
                    grace: .milliseconds(100)
                ) {
                    running.withLock { $0 = true }
                    do {
                        try await Task.sleep(for: .seconds(3600))  // a statement that never answers
                    } catch {
                        cancelled.withLock { $0 = true }
                        throw error
                    }
                }
            }
            let guarded = try await eventually(timeout: .seconds(5)) { running.withLock { $0 } }
            #expect(guarded, "the statement never started")
            let closed = ContinuousClock.now
            try await connection.close()
            let given = try await outcome
            let waited = ContinuousClock.now - closed
            guard case .failed(let error) = given else { throw TestSetupError("\(given) \(waited) after the close") }
            #expect(error is LostStatementError, "\(error)")
            #expect(waited < .seconds(2), "given up \(waited) after the close")
            let deadline = ContinuousClock.now + .seconds(5)
            while !cancelled.withLock({ $0 }) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(cancelled.withLock { $0 }, "the statement's task was not cancelled")
        }
    }

    /// A statement written right after its connection closed (a real lost write, past the guard's first look) is
    /// given up by a later look.
    @Test func aStatementLostAfterTheFirstLookIsGivenUp() async throws {
        try await Self.withConnection { connection in
            let given = try await Self.outcome(within: .seconds(10)) {
                _ = try await LostStatementGuard.run(
                    on: connection, executor: nil, logger: Self.logger, checkInterval: .milliseconds(100),
                    grace: .milliseconds(100)
                ) {
                    try await connection.close()
                    return try await connection.query("SELECT 1", logger: Self.logger).collect().count
                }
            }
            guard case .failed(let error) = given else { throw TestSetupError("\(given)") }
            #expect(error is LostStatementError, "\(error)")
        }
    }

    /// A statement longer than many looks at its open connection is answered, not given up.
    @Test func aSlowStatementOnAnOpenConnectionIsAnswered() async throws {
        try await Self.withConnection { connection in
            let answered = try await Self.outcome(within: .seconds(10)) {
                let rows = try await LostStatementGuard.run(
                    on: connection, executor: nil, logger: Self.logger, checkInterval: .milliseconds(50),
                    grace: .milliseconds(50)
                ) {
                    try await connection.query("SELECT pg_sleep(1)", logger: Self.logger).collect().count
                }
                #expect(rows == 1)
            }
            guard case .answered = answered else { throw TestSetupError("\(answered)") }
        }
    }

    /// A caller cancelled while its statement runs still gets the statement's outcome, and does not hang.
    @Test func aCancelledCallerGetsTheStatementsOutcome() async throws {
        try await Self.withConnection { watcher in
            try await Self.withConnection { connection in
                let pid = try await connection.query("SELECT pg_backend_pid()", logger: Self.logger).collect()[0]
                    .decode(Int32.self)
                let caller = Task {
                    try await DatabaseConnection(connection, executor: nil).query(
                        "SELECT pg_sleep(1)", logger: Self.logger
                    ).collect().count
                }
                // Cancelled while the server runs it.
                let runs = try await eventually(timeout: .seconds(5)) {
                    try await watcher.query(
                        """
                        SELECT count(*) FROM pg_stat_activity
                        WHERE pid = \(pid) AND state = 'active' AND query LIKE 'SELECT pg_sleep(1)%'
                        """, logger: Self.logger
                    ).collect()[0].decode(Int64.self) == 1
                }
                #expect(runs, "the statement never ran")
                caller.cancel()
                let outcome = try await Self.outcome(within: .seconds(10)) { _ = try await caller.value }
                if case .waiting = outcome { Issue.record("the cancelled caller never returned") }
            }
        }
    }

    /// A statement whose connection the server terminates fails with the server's error, as it did without the guard.
    @Test func aStatementOnAConnectionTheServerTerminatesFailsWithTheServersError() async throws {
        try await Self.withConnection { killer in
            try await Self.withConnection { connection in
                let pid = try await connection.query("SELECT pg_backend_pid()", logger: Self.logger).collect()[0]
                    .decode(Int32.self)
                async let sleeping = Self.outcome(within: .seconds(10)) {
                    _ = try await DatabaseConnection(connection, executor: nil).query(
                        "SELECT pg_sleep(30)", logger: Self.logger
                    ).collect()
                }
                // Terminated once the server runs it (a statement not yet written when its connection closes is lost).
                let deadline = ContinuousClock.now + .seconds(10)
                while ContinuousClock.now < deadline {
                    let running = try await killer.query(
                        "SELECT count(*) FROM pg_stat_activity WHERE pid = \(pid) AND query LIKE 'SELECT pg_sleep(30)%'",
                        logger: Self.logger
                    ).collect()[0].decode(Int64.self)
                    if running == 1 { break }
                    try await Task.sleep(for: .milliseconds(10))
                }
                try await killer.query("SELECT pg_terminate_backend(\(pid))", logger: Self.logger)
                guard case .failed(let error) = try await sleeping else {
                    throw TestSetupError("pg_sleep was not ended")
                }
                #expect(error is PSQLError, "\(error)")
            }
        }
    }
}
