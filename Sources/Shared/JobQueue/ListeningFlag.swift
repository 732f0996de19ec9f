import PostgresDatabase
import Synchronization

/// A flag a job runner sets while its LISTEN connection is up, read by the worker's health check.
public final class ListeningFlag: Sendable {
    private let value = Atomic<Bool>(true)

    public init() {}

    public var isUp: Bool { self.value.load(ordering: .relaxed) }

    func set(_ up: Bool) { self.value.store(up, ordering: .relaxed) }
}
