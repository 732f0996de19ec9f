/// What an end report did.
public struct ActivityEndResult: Sendable, Equatable {
    /// Instances it ended (0 or 1).
    public var ended: Int
    /// Whether it recorded anything: the device's end of the instance it ended, or the dismissal of one that had
    /// already ended.
    public var recorded: Bool
    /// Whether this call recorded it (false for a repeat of a dismissal already recorded).
    public var isNew: Bool

    public init(ended: Int, recorded: Bool, isNew: Bool) {
        self.ended = ended
        self.recorded = recorded
        self.isNew = isNew
    }
}
