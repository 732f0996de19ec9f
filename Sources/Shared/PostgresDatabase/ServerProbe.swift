import Logging
import NIOCore
import PostgresNIO

/// Asks servers of a multi-host URL what they are, on connections of their own, as libpq does when it picks a host
/// for `target_session_attrs`: whether the server is in recovery (a standby) and whether its sessions are read-only by
/// default.
struct ServerProbe: Sendable {
    let url: DatabaseURL
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    /// Bounds a connection and a question alike: a server that has vanished without a word (a dropped link) is given up
    /// after this.
    var timeout: TimeAmount = .seconds(2)

    /// The index of the server to use, in the URL's order: `current` when it is still acceptable (a switch only when it
    /// is not), else the first acceptable one; nil when none is.
    func choose(current: Int?) async -> Int? {
        let target = self.url.targetSessionAttributes
        var states: [Int: TargetSessionAttributes.ServerState] = [:]
        if let current, let state = await self.state(of: current) {
            if target.accepts(state) { return current }
            states[current] = state
        }
        for index in self.url.servers.indices where index != current {
            guard let state = await self.state(of: index) else { continue }
            if target.accepts(state) { return index }
            states[index] = state
        }
        if target.acceptsOnSecondPass { return states.keys.sorted().first }
        return nil
    }

    /// What server `index` says of itself, on a connection opened and closed for the question; nil when it cannot be
    /// reached or does not answer within `timeout`.
    func state(of index: Int) async -> TargetSessionAttributes.ServerState? {
        guard let connection = await self.connect(index) else { return nil }
        let state = await self.ask(connection)
        try? await connection.close()
        return state
    }

    /// A connection to server `index`, for questions; nil when it cannot be had within `timeout`.
    func connect(_ index: Int) async -> PostgresConnection? {
        let server = self.url.servers[index]
        do {
            return try await PostgresConnection.connect(
                on: self.eventLoopGroup.any(),
                configuration: self.url.connectionConfiguration(server: server, connectTimeout: self.timeout),
                id: 0, logger: self.logger)
        } catch {
            self.logger.debug("database server did not answer", metadata: ["server": "\(server)", "error": "\(error)"])
            return nil
        }
    }

    /// What the server at the other end of `connection` says of itself; nil (and the connection closed) when it does
    /// not answer within `timeout`.
    func ask(_ connection: PostgresConnection) async -> TargetSessionAttributes.ServerState? {
        // A question on a link that went silent would wait for TCP; closing the connection ends it.
        let deadline = connection.eventLoop.scheduleTask(in: self.timeout) {
            connection.close() as EventLoopFuture<Void>
        }
        defer { deadline.cancel() }
        let logger = self.logger
        do {
            // Under `LostStatementGuard`: a question written just as the server closed the connection is never
            // answered by PostgresNIO, and closing the connection does not end that wait.
            return try await LostStatementGuard.run(on: connection, executor: nil, logger: logger) {
                let rows = try await connection.query(
                    "SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'", logger: logger)
                var answer: TargetSessionAttributes.ServerState?
                for try await (inRecovery, readOnly) in rows.decode((Bool, Bool).self) {
                    answer = .init(inRecovery: inRecovery, readOnly: readOnly)
                }
                return answer
            }
        } catch {
            try? await connection.close()
            return nil
        }
    }
}
