/// A running `watch`: cancel it to stop following (a new process starts a new one).
public final class ActivityWatch: Sendable {
    let watcher: ActivityWatcher
    let task: Task<Void, Never>

    init(watcher: ActivityWatcher, task: Task<Void, Never>) {
        self.watcher = watcher
        self.task = task
    }

    /// Returns once every watched type's current activities were forwarded and the channel reconciled (or the watch
    /// was canceled). A call that failed then is sent again later (`resync`).
    public func restored() async { await self.watcher.waitRestored() }

    /// Sends again now what the gateway has not accepted yet (the watch also does this on its own, every
    /// `resyncInterval`): call it when the app becomes active, for instance.
    public func resync() async { await self.watcher.resync() }

    /// True when the gateway has accepted everything the watch wants it to know.
    public var isSynced: Bool { get async { await self.watcher.isSynced } }

    public func cancel() {
        self.task.cancel()
        let watcher = self.watcher
        Task { await watcher.stop() }
    }
}
