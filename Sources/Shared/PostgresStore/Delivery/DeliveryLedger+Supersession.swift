import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// The statements of superseding between pushes of one app and activity name (`sql/0012_ordering.sql`); what
/// supersedes what, and how long to wait, `PushSupersession` (module `Delivery`) decides.
///
/// A push starting while an older one of the same name is unfinished appends itself to that push's `superseded_by`
/// and raises `superseded_gen` on its batches. Each batch declares, before it sends a chunk, how many superseding
/// pushes it has honoured (`sending_gen`, leased until `sending_until`): the record of a chunk declares the next
/// one, `declareChunk` the first. The newer push waits until no batch of the older one is sending a chunk chosen
/// before it was superseded; every chunk chosen after leaves out the targets a superseding push reaches. The two
/// writes meet on the batch row, so PostgreSQL orders them: either the declaration saw the flag, or the newer push
/// sees the declaration and waits for the chunk's record.
extension DeliveryLedger {
    /// How long a declared chunk may be in flight: the client's request timeout (10 s, counted from the chunk's
    /// submission, connection waits included) and 10 s for the chunk's select before it and its record after it; a
    /// retry round declares again. A worker that dies mid-chunk holds a superseding push back this long, and the
    /// superseding push's job holds a worker's slot meanwhile: with 30 s, `make chaos` once saw the other app's
    /// updates wait 22 s and a fan-out resumed 32 s after its worker was killed.
    public static let sendingLease: Duration = .seconds(20)

    static var leaseSeconds: Double { Self.sendingLease.seconds }

    /// An unfinished push of the same name, as a starting push compares itself with it (`PushSupersession`).
    public struct UnfinishedPush: Sendable, Equatable {
        public var id: UUID
        public var event: LiveActivityNotification.Event
        public var order: PushOrder

        public init(id: UUID, event: LiveActivityNotification.Event, order: PushOrder) {
            self.id = id
            self.event = event
            self.order = order
        }

        /// The pushes of the first-chunk statement's last four columns (ids, events, timestamps, acceptance orders).
        static func decode(_ row: PostgresRow) throws -> [UnfinishedPush] {
            let cells = row.makeRandomAccess()
            let last = cells.count - 1
            let ids = try cells[last - 3].decode([UUID].self)
            let events = try cells[last - 2].decode([String].self)
            let stamps = try cells[last - 1].decode([Int64].self)
            let seqs = try cells[last].decode([Int64].self)
            return ids.indices.compactMap { index in
                LiveActivityNotification.Event(rawValue: events[index]).map {
                    UnfinishedPush(
                        id: ids[index], event: $0, order: PushOrder(timestamp: stamps[index], seq: seqs[index]))
                }
            }
        }
    }

    /// What the first chunk's statement found (`firstChunk(of:limit:unlessUnfinished:)`).
    public enum FirstChunkRead: Sendable {
        /// The targets, and the push claimed with its one batch (with the superseding count its chunk honours) when
        /// they fit in one chunk.
        case read(targets: [PushTargets.Target], superseding: Int?)
        /// Other unfinished pushes of the name, which the push must be compared with first: nothing was claimed.
        case unfinished([UnfinishedPush])
        /// No targets: the statement, which answers a row per target, could not tell whether there were any.
        case unknown
    }

    /// The push's acceptance order (`pushes.seq`; a fan-out job of an earlier build does not carry it) and the
    /// unfinished pushes of its name that it must be compared with (`UnfinishedStatements`); none for a start or a push
    /// with no name, which supersede nothing.
    public func unfinished(sameNameAs push: PushForDelivery, logger: Logger) async throws
        -> (seq: Int64, pushes: [UnfinishedPush])
    {
        guard push.targets.event != .start, let name = push.targets.name else { return (push.seq, []) }
        let rows = try await self.database.client.query(
            try UnfinishedStatements.query(for: push, name: name), logger: logger)
        var unfinished: [UnfinishedPush] = []
        var own = push.seq
        for try await row in rows {
            let read = try UnfinishedStatements.Row(row)
            guard read.id != push.id else {
                own = read.order.seq
                continue
            }
            guard let event = LiveActivityNotification.Event(rawValue: read.event) else { continue }
            unfinished.append(UnfinishedPush(id: read.id, event: event, order: read.order))
        }
        return (own, unfinished)
    }

    /// Writes what `PushSupersession` decided: `push` supersedes `older` (each gets it in `superseded_by`, their
    /// unfinished batches a raised `superseded_gen`) and is superseded by `newer`. Two statements, the second only
    /// when `older` is not empty.
    public func markSuperseding(_ push: PushForDelivery, older: [UUID], newer: [UUID], logger: Logger) async throws {
        guard !older.isEmpty || !newer.isEmpty else { return }
        // Both in one statement; the batches in a second, whose snapshot sees batches that a fan-out recorded while
        // this statement waited for the older push's row. Rows are locked in key order: two pushes flagging the same
        // older ones at once wait for each other instead of deadlocking.
        try await self.database.client.execute(
            FlagSupersedingStatement.prepared(pushID: push.id, appID: push.appID, older: older, newer: newer),
            logger: logger)
        guard !older.isEmpty else { return }
        try await self.database.client.execute(
            RaiseSupersededGenStatement.prepared(pushes: older, appID: push.appID), logger: logger)
    }

    /// How many batches of `pushes` are sending a chunk chosen before their latest superseding push (and within the
    /// chunk's lease). A stopped batch (a cancel) counts too: its chunk in flight still completes. An indexed count.
    public func chunksInFlight(of pushes: [UUID], appID: Int64, logger: Logger) async throws -> Int64 {
        let rows = try await self.database.client.execute(
            ChunksInFlightStatement.prepared(pushes: pushes, appID: appID), logger: logger)
        var inFlight: Int64 = 0
        for try await row in rows { inFlight = try ChunksInFlightStatement.decode(row).inFlight }
        return inFlight
    }

    /// The condition on `pushes` of the unfinished pushes that `unfinished(sameNameAs:logger:)` compares `push` with,
    /// without the push itself, for the first chunk's statement (`UnfinishedStatements` says the same per audience;
    /// the two must agree). Nil for a start or a push with no name, which supersede nothing.
    func unfinishedOfTheSameName(_ sql: inout SQLBuilder, as push: PushForDelivery) -> String? {
        guard push.targets.event != .start, let name = push.targets.name else { return nil }
        let disjoint = push.targets.audience.surelyDisjoint(&sql, column: "audience") ?? "false"
        return """
            app_id = \(sql.bind(push.appID)) AND activity_name = \(sql.bind(name))
              AND state IN ('queued', 'sending') AND event <> 'start'
              AND (id <> \(sql.bind(push.id)) AND NOT \(disjoint))
            """
    }

    /// Declares that batch `seq` of `push` is about to send a chunk (its first, or a retry round), for the lease.
    /// Answers how many superseding pushes the chunk must honour, or nil when the batch no longer sends.
    public func declareChunk(pushID: UUID, appID: Int64, seq: Int32, runner: UUID? = nil) async throws -> Int? {
        let rows = try await self.database.client.execute(
            DeclareChunkStatement.prepared(
                pushID: pushID, appID: appID, seq: seq, runner: runner, leaseSeconds: Self.leaseSeconds),
            logger: self.database.logger)
        for try await row in rows { return Int(try DeclareChunkStatement.decode(row).superseding) }
        return nil
    }

    /// The audiences of the pushes that supersede `pushID` and may still send (not canceled or failed).
    public func superseders(of pushID: UUID) async throws -> [Audience] {
        let rows = try await self.database.client.execute(
            SupersedersStatement.prepared(pushID: pushID), logger: self.database.logger)
        var audiences: [Audience] = []
        for try await row in rows {
            let json = try SupersedersStatement.decode(row).audience
            audiences.append(try JSONDecoder().decode(Audience.self, from: Data(json.utf8)))
        }
        return audiences
    }

    /// The channels among `channels` that any of `audiences` reaches, in one query (`ReachedChannelsStatement`).
    public func channels(_ channels: [UUID], reachedBy audiences: [Audience], appID: Int64) async throws -> Set<UUID> {
        guard !channels.isEmpty, !audiences.isEmpty else { return [] }
        let query = ReachedChannelsStatement.query(channels: channels, appID: appID, audience: .or(audiences))
        var reached: Set<UUID> = []
        for try await row in try await self.database.client.query(query, logger: self.database.logger) {
            reached.insert(try ReachedChannelsStatement.Row(row).channelID)
        }
        return reached
    }
}
