/// Where a push is (`pushes.state`): queued until its fan-out claims it, sending while batches run, then done,
/// failed (APNs refused the app's configuration) or canceled.
public enum PushState: String, Sendable, Codable, CaseIterable {
    case queued, sending, done, failed, canceled

    /// Done, failed or canceled: nothing more will be sent.
    public var isFinished: Bool { self == .done || self == .failed || self == .canceled }
}
