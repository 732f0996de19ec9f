/// A running `watch`: cancel it to stop following (a new process starts a new one).
public final class ActivityWatch: Sendable {
    let watcher: ActivityWatcher
    let task: Task<Void, Never>

    init(watcher: ActivityWatcher, task: Task<Void, Never>) {
        self.watcher = watcher
        self.task = task
    }

    /// Returns once every watched type's current activities were forwarded and the channel reconciled.
    public func restored() async { await self.watcher.waitRestored() }

    public func cancel() {
        self.task.cancel()
        let watcher = self.watcher
        Task { await watcher.stop() }
    }
}
