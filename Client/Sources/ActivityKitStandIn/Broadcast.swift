import Synchronization

/// One source, any number of listeners: each `subscribe()` is an `AsyncStream` of the values yielded after it. The
/// stand-in's sequences are built on it; `finishAll()` ends every listener, as a process's death ends its sequences.
final class Broadcast<Element: Sendable>: Sendable {
    private let listeners = Mutex<[Int: AsyncStream<Element>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    func subscribe() -> AsyncStream<Element> {
        let id = self.nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        continuation.onTermination = { [weak self] _ in _ = self?.listeners.withLock { $0.removeValue(forKey: id) } }
        self.listeners.withLock { $0[id] = continuation }
        return stream
    }

    func yield(_ value: Element) {
        for continuation in self.listeners.withLock({ Array($0.values) }) { continuation.yield(value) }
    }

    func finishAll() {
        for continuation in self.listeners.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
