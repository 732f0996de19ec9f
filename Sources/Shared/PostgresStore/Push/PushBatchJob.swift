import Foundation

/// `push.batch`: send batch `batch` of a push, from its cursor to its end.
public struct PushBatchJob: JobPayload, Equatable {
    public static let kind = JobKind.pushBatch

    public var pushID: UUID
    public var batch: Int32

    public init(pushID: UUID, batch: Int32) {
        self.pushID = pushID
        self.batch = batch
    }

    enum CodingKeys: String, CodingKey {
        case pushID = "push_id"
        case batch = "seq"
    }

    /// Ids in lowercase, as the API and the tables show them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(self.pushID.uuidString.lowercased(), forKey: .pushID)
        try c.encode(self.batch, forKey: .batch)
    }
}
