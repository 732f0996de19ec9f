/// What the watcher does for one attributes type, whatever the type.
protocol WatchedType: Sendable {
    var attributesType: String { get }
    /// Follows the type until the watch ends: its current activities (their ids reported to the watcher's restore
    /// barrier), the ones that start later, and its push-to-start token.
    func run(_ watcher: ActivityWatcher) async
}
