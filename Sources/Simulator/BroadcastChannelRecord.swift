/// A broadcast channel in the simulator's registry.
struct BroadcastChannelRecord: Sendable {
    var messageStoragePolicy: Int
    var createdAt: Double
}
