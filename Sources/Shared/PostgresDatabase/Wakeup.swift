import Synchronization

/// A signal one task waits for: `signal()` wakes the waiter, or the next `wait()` when none waits (signals before a
/// wait are one). Cancelling the waiter ends its wait.
final class Wakeup: Sendable {
    private struct State {
        var signalled = false
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func signal() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.signalled = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the first signal since the last wait, or when the task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = self.state.withLock { state -> Bool in
                    if state.signalled || state.cancelled {
                        state.signalled = false
                        state.cancelled = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                if state.waiter == nil { state.cancelled = true }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
