import NIOCore
import Synchronization

/// One connection's figures for its pool's sizing (`PoolSizer`): written on the connection's event loop, read from
/// any thread (relaxed atomics: the pool needs recent figures, not a consistent snapshot of all three).
final class SlotMeter: Sendable {
    /// Answers so far, and their round trips (stream out to answer) summed in nanoseconds.
    let answers = Atomic<Int64>(0)
    let roundTripNanos = Atomic<Int64>(0)
    /// The streams the connection allows now that a provider token was accepted (the peer's limit within ours); 0
    /// before that, or without a connection.
    let streamLimit = Atomic<Int>(0)

    func answered(after roundTrip: TimeAmount?, streams gate: borrowing StreamGate<Int>) {
        if let roundTrip {
            self.answers.add(1, ordering: .relaxed)
            self.roundTripNanos.add(roundTrip.nanoseconds, ordering: .relaxed)
        }
        self.publish(gate)
    }

    func publish(_ gate: borrowing StreamGate<Int>) {
        let limit = gate.authenticated ? gate.limit : 0
        if self.streamLimit.load(ordering: .relaxed) != limit { self.streamLimit.store(limit, ordering: .relaxed) }
    }
}
