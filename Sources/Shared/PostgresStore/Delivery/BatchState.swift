/// Where a batch of a push is (`push_batches.state`): queued until its last chunk is recorded (done), or stopped by
/// a cancel or a configuration error.
public enum BatchState: String, Sendable, Codable, CaseIterable {
    case queued, done, stopped
}
