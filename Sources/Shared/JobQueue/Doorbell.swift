import LiveActivitiesCore
import PostgresDatabase

/// Wakes a sleeping loop: `wait(timeout:)` returns when rung, when the timeout passes, or when the task is
/// cancelled. A ring with nobody waiting is remembered once, so a wake-up between two waits is not lost.
public actor Doorbell {
    private var pending = false
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextID: UInt64 = 0

    public init() {}

    public func ring() {
        guard !self.waiters.isEmpty else {
            self.pending = true
            return
        }
        let waiting = self.waiters
        self.waiters.removeAll()
        for continuation in waiting.values { continuation.resume() }
    }

    public func wait(timeout: Duration) async {
        if self.pending {
            self.pending = false
            return
        }
        guard timeout > .zero, !Task.isCancelled else { return }
        let id = self.nextID
        self.nextID += 1
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.resume(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                self.waiters[id] = continuation
            }
        } onCancel: {
            Task { await self.resume(id) }
        }
        timer.cancel()
    }

    private func resume(_ id: UInt64) {
        self.waiters.removeValue(forKey: id)?.resume()
    }
}
