/// The waits a test may use: each polls or races against a deadline, none sleeps in place of an event.

/// Polls `probe` every 50 ms until it returns a value, failing after `timeout`.
public func until<T: Sendable>(
    _ what: String, timeout: Duration = .seconds(30), _ probe: @Sendable () async throws -> T?
) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let value = try await probe() { return value }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw TestSetupError("timed out after \(timeout) waiting for \(what)")
}

/// Runs `operation`, failing after `timeout`.
@discardableResult
public func within<T: Sendable>(
    _ timeout: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TestSetupError("timed out after \(timeout) waiting for \(what)")
        }
        return value
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; answers whether it held.
public func eventually(
    timeout: Duration = .seconds(30), _ condition: @Sendable () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
