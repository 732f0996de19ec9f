/// Waits with a deadline: a condition checked every `every` until it holds or `tries` checks have failed.
enum Poll {
    @discardableResult
    static func until(
        tries: Int, every: Duration, _ condition: () async throws -> Bool
    ) async -> Bool {
        for attempt in 0..<tries {
            if (try? await condition()) == true { return true }
            if attempt < tries - 1 { try? await Task.sleep(for: every) }
        }
        return false
    }
}
