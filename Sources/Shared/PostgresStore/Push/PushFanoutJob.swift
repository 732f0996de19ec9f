import Foundation

/// `push.fanout`: resolve a push's audience, then send it or split it into batches. It carries the push itself, so
/// that its first run needs no read of the push (one round trip less before a single update's APNs request).
public struct PushFanoutJob: JobPayload, Equatable {
    public static let kind = JobKind.pushFanout

    public var pushID: UUID
    /// The push as it was inserted; a job of an earlier build may have none (the handler then reads the push).
    public var push: PushForDelivery.Snapshot?

    public init(pushID: UUID, push: PushForDelivery.Snapshot?) {
        self.pushID = pushID
        self.push = push
    }

    enum CodingKeys: String, CodingKey {
        case pushID = "push_id"
        case push
    }

    /// Ids in lowercase, as the API and the tables show them (`payload->>'push_id'` finds them).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(self.pushID.uuidString.lowercased(), forKey: .pushID)
        try c.encodeIfPresent(self.push, forKey: .push)
    }
}
