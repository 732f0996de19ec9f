import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore

@testable import Delivery

/// Targets and shorthands for the machines' tests: channel ids in order, answers by name.
enum Fixtures {
    static let settings = BatchSend.Settings(
        chunkSize: 3, maxAttempts: 3, backoff: Backoff(base: .milliseconds(100), cap: .seconds(2)))
    static let order = PushOrder(timestamp: 100, seq: 10)

    /// Channel `n` (ids sort by `n`), instance `n`.
    static func target(
        _ n: UInt8, last: PushOrder? = nil, hold: TargetHold = .none
    ) -> PushTargets.Target {
        PushTargets.Target(
            channelID: self.channel(n), instanceID: Int64(n), token: "token\(n)", lastTimestamp: last?.timestamp,
            lastSeq: last?.seq, hold: hold)
    }

    static func channel(_ n: UInt8) -> UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n)) }

    /// A machine whose first chunk is handed in (declared by the caller with `superseding`).
    static func machine(
        _ first: [PushTargets.Target], superseding: Int = 0, event: LiveActivityNotification.Event = .update,
        priority: Int16 = 10
    ) -> BatchSend {
        BatchSend(
            event: event, order: self.order, priority: priority, resumeAfter: nil,
            first: (first, superseding), settings: self.settings)
    }

    static let accepted = APNsClient.Result.success(.accepted(apnsID: nil))
    static let unavailable = APNsClient.Result.success(
        .rejected(status: 503, reason: .serviceUnavailable, timestamp: nil))
    static let tooMany = APNsClient.Result.success(.rejected(status: 429, reason: .tooManyRequests, timestamp: nil))
    static let unregistered = APNsClient.Result.success(.rejected(status: 410, reason: .unregistered, timestamp: 1))
    static let badTopic = APNsClient.Result.success(.rejected(status: 400, reason: .badTopic, timestamp: nil))
}

extension BatchSend.Action {
    /// The action without its values, to compare.
    var kind: String {
        switch self {
        case .select: "select"
        case .declare: "declare"
        case .startChunk: "startChunk"
        case .readSuperseders: "readSuperseders"
        case .findReached: "findReached"
        case .send: "send"
        case .wait: "wait"
        case .record: "record"
        case .takeNext: "takeNext"
        case .finishBatch: "finishBatch"
        case .end: "end"
        case .refused: "refused"
        case .interrupt: "interrupt"
        }
    }

    var round: BatchSend.Round? {
        if case .send(let round) = self { return round }
        return nil
    }

    var record: (outcome: ChunkOutcome, lastOfBatch: Bool)? {
        if case .record(let outcome, let last) = self { return (outcome, last) }
        return nil
    }

    var prefetchAfter: UUID?? {
        if case .startChunk(let after) = self { return .some(after) }
        return nil
    }
}
