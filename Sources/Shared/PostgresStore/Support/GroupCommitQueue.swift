import LiveActivitiesCore

/// Group commit, as a pure state machine. The first callers run at once, each as a batch of one, up to
/// `maxInFlight` batches; callers that come while that many run wait in order. The caller that finishes a batch
/// takes the next one from the waiting (at most `maxBatch`, one per key, oldest first) and wakes its first element,
/// which runs it. So a quiet system adds no wait, and a busy one sends many calls in one round trip.
///
/// Elements with the same key never share a batch: a later one waits for a batch of its own.
public struct GroupCommitQueue<Key: Hashable, Element> {
    public enum Submission {
        /// Run this batch now (the submitted element alone).
        case lead([Element])
        /// Wait: a finishing batch will hand this element on, as a leader or a follower.
        case wait
    }

    public let maxInFlight: Int
    public let maxBatch: Int
    public private(set) var inFlight = 0
    private var waiting: [(key: Key, element: Element)] = []

    public init(maxInFlight: Int, maxBatch: Int) {
        precondition(maxInFlight >= 1 && maxBatch >= 1)
        self.maxInFlight = maxInFlight
        self.maxBatch = maxBatch
    }

    public var waitingCount: Int { self.waiting.count }

    public mutating func submit(_ element: Element, key: Key) -> Submission {
        // Invariant: nothing waits while fewer than `maxInFlight` batches run.
        guard self.inFlight >= self.maxInFlight else {
            self.inFlight += 1
            return .lead([element])
        }
        self.waiting.append((key, element))
        return .wait
    }

    /// A batch finished. Returns the next batch, which takes over its place, or nil (one batch fewer in flight).
    public mutating func batchFinished() -> [Element]? {
        guard !self.waiting.isEmpty else {
            self.inFlight -= 1
            return nil
        }
        var keys = Set<Key>()
        var batch: [Element] = []
        var rest: [(key: Key, element: Element)] = []
        for entry in self.waiting {
            if batch.count < self.maxBatch, keys.insert(entry.key).inserted {
                batch.append(entry.element)
            } else {
                rest.append(entry)
            }
        }
        self.waiting = rest
        return batch
    }
}
