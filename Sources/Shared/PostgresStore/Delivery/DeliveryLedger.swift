import Foundation
import LiveActivitiesCore
import Logging
import NIOCore
import PostgresNIO

/// The rows the worker reads and writes while delivering pushes. Every write of a chunk is one transaction.
public struct DeliveryLedger: Sendable {
    let database: Database
    let distribution = DistributionProbe()
    let attemptStatistics = AttemptStatistics()

    public init(database: Database) {
        self.database = database
    }

    /// On Citus (docs/scaling.md), a chunk's record stamps by id (`ChunkRecordByIDStatement`).
    func isDistributed() async throws -> Bool {
        try await self.distribution.isDistributed(self.database.client, logger: self.logger)
    }

    private var logger: Logger { self.database.logger }

    public func push(_ id: UUID) async throws -> PushForDelivery? {
        let rows = try await self.database.client.execute(
            PushForDeliveryStatement.prepared(pushID: id), logger: self.logger)
        for try await row in rows {
            let read = try PushForDeliveryStatement.decode(row)
            return PushForDelivery(
                id: id, appID: read.appID, state: read.state, event: read.event, name: read.name,
                attributesType: read.attributesType,
                audience: try JSONDecoder().decode(Audience.self, from: Data(read.audience.utf8)),
                payload: read.payload, timestamp: read.timestamp, seq: read.seq, priority: read.priority,
                route: DeliveryRoute(name: read.delivery, channelID: read.broadcastChannelID) ?? .tokens,
                restart: read.restart, expiration: read.expiration)
        }
        return nil
    }

    /// Records the fan-out: batches, their jobs, the targeted count (an estimate if the plan's is). False when another run
    /// already did.
    public func recordFanout(push: PushForDelivery, plan: BatchPlan) async throws -> Bool {
        let count = plan.sizes.count
        let total = plan.total
        return try await self.database.transaction { connection in
            let claimed = try await connection.query(
                ClaimFanoutStatement.query(
                    pushID: push.id, appID: push.appID, batches: Int32(count), targeted: Int64(total)),
                logger: self.logger
            ).collect()
            guard !claimed.isEmpty else { return false }
            guard count > 0 else { return true }
            let lowers = [""] + plan.boundaries.map(\.uuidString)
            let uppers = plan.boundaries.map(\.uuidString) + [""]
            let sizes = plan.sizes.map { Int32($0) }
            try await connection.query(
                InsertFanoutBatchesStatement.query(
                    pushID: push.id, estimated: plan.estimated, lowers: lowers, uppers: uppers, sizes: sizes),
                logger: self.logger)
            _ = try await PostgresJobQueue.enqueue(
                try (0..<count).map { seq in
                    try JobRequest(PushBatchJob(pushID: push.id, batch: Int32(seq)), appID: push.appID)
                },
                on: connection, logger: self.logger)
            return true
        }
    }

    /// Reads the push's first targets (up to `limit` + 1) and, when there are 1 to `limit` of them, records in the same
    /// statement the fan-out of a push that its fan-out job sends itself: the push becomes `sending` with one batch,
    /// whose chunk is declared in flight (`DeliveryLedger+Supersession.swift`). One round trip on a single update's
    /// way to APNs. `superseding` is the superseding count the chunk must honour, nil when there are no targets,
    /// more than `limit`, or another run already recorded the push.
    public func firstChunk(of push: PushForDelivery, limit: Int) async throws
        -> (targets: [PushTargets.Target], superseding: Int?)
    {
        guard
            case .read(let targets, let superseding) = try await self.firstChunk(
                of: push, limit: limit, unlessUnfinished: false)
        else { preconditionFailure("a first chunk read that does not look for unfinished pushes is always read") }
        return (targets, superseding)
    }

    /// The `unfinished` part of a first chunk's statement that looks for no other push.
    private static let noUnfinished =
        "SELECT '{}'::uuid[] AS ids, '{}'::text[] AS events, '{}'::int8[] AS stamps, '{}'::int8[] AS seqs"

    /// The first chunk's statement; dynamic, not catalogued: it embeds the push's audience (`chunkSelect`) and, with
    /// `unlessUnfinished`, the audience test of `unfinishedOfTheSameName`. With `unlessUnfinished`, the statement also reads the unfinished pushes of the name
    /// that `unfinished(sameNameAs:logger:)` would answer (`unfinishedOfTheSameName`) and claims the push only when
    /// there are none.
    public func firstChunk(of push: PushForDelivery, limit: Int, unlessUnfinished: Bool) async throws
        -> FirstChunkRead
    {
        var sql = SQLBuilder()
        let first = push.targets.chunkSelect(
            &sql, after: nil, upTo: nil, limit: limit + 1, sentBy: (push.id, push.order))
        let others =
            unlessUnfinished
            ? self.unfinishedOfTheSameName(&sql, as: push).map { condition in
                """
                SELECT coalesce(array_agg(id), '{}') AS ids, coalesce(array_agg(event::text), '{}') AS events,
                       coalesce(array_agg(apns_timestamp::int8), '{}') AS stamps,
                       coalesce(array_agg(seq::int8), '{}') AS seqs
                FROM pushes WHERE \(condition)
                """
            } : nil
        let (id, most, lease) = (sql.bind(push.id), sql.bind(limit), sql.bind(Self.leaseSeconds))
        let app = sql.bind(push.appID)
        let query = PostgresQuery(
            unsafeSQL: """
                WITH first AS (\(first)),
                total AS (SELECT count(*)::int4 AS n FROM first),
                unfinished AS (\(others ?? Self.noUnfinished)),
                claimed AS (
                    UPDATE pushes SET state = 'sending', batches_total = 1, targeted = total.n, started_at = now()
                    FROM total, unfinished
                    WHERE pushes.id = \(id) AND pushes.app_id = \(app) AND pushes.state = 'queued' AND total.n BETWEEN 1 AND \(most)
                      AND cardinality(unfinished.ids) = 0
                    RETURNING total.n, cardinality(pushes.superseded_by) AS superseding, pushes.created_at,
                              pushes.app_id
                ),
                batch AS (
                    INSERT INTO push_batches (push_id, seq, lower_channel, upper_channel, targets, sent_by_fanout,
                                              superseded_gen, sending_gen, sending_until, push_created_at, app_id)
                    SELECT \(id), 0, NULL, NULL, n, true, superseding, superseding,
                           now() + make_interval(secs => \(lease)), created_at, app_id
                    FROM claimed
                )
                SELECT first.*, (SELECT superseding::int8 FROM claimed), unfinished.ids, unfinished.events,
                       unfinished.stamps, unfinished.seqs
                FROM first, unfinished ORDER BY first.channel_id
                """, binds: sql.binds)
        var targets: [PushTargets.Target] = []
        var superseding: Int?
        var blocked = false
        var unfinished: [UnfinishedPush] = []
        let rows = try await self.database.client.query(query, logger: self.logger)
        for try await row in rows {
            let decoded = try PushTargets.Target.decode(row)
            if targets.isEmpty && unlessUnfinished { unfinished = try UnfinishedPush.decode(row) }
            targets.append(decoded.target)
            blocked = decoded.blocked
            superseding = decoded.extra.map(Int.init)
        }
        if unlessUnfinished && targets.isEmpty { return .unknown }
        if !unfinished.isEmpty { return .unfinished(unfinished) }
        // More than `limit` targets: the push goes out in batches, whose chunks fold what they need; these are a sample.
        if blocked && targets.count <= limit {
            targets = try await self.foldAndReread(
                push, after: nil, upTo: nil, through: targets.last?.channelID, limit: limit + 1)
        }
        return .read(targets: targets, superseding: superseding)
    }

    /// The next `limit` targets of `push` with channel ids in (after, upTo]. Pending stamps of another push that could
    /// make one of them skip this push are folded in first (the select says so, and is then made again).
    /// `rowRefs`: see `PushTargets.chunk`; a chunk whose stamps are deferred does not need them.
    public func chunk(of push: PushForDelivery, after: UUID?, upTo: UUID?, limit: Int, rowRefs: Bool = true)
        async throws -> [PushTargets.Target]
    {
        let (targets, blocked) = try await push.targets.chunk(
            after: after, upTo: upTo, limit: limit, sentBy: (push.id, push.order), rowRefs: rowRefs,
            on: self.database.client, logger: self.logger)
        guard blocked else { return targets }
        let through = targets.count == limit ? targets.last?.channelID : upTo
        return try await self.foldAndReread(
            push, after: after, upTo: upTo, through: through, limit: limit, rowRefs: rowRefs)
    }

    /// Another push's pending stamps could make some targets skip `push`: folds those of the channels the chunk read,
    /// (after, through] (the stamps change what a target's row says, not which targets there are), then reads the
    /// chunk again. A large push older than a pending one so folds a chunk's worth at a time, as it goes.
    ///
    /// A target read the first time may no longer qualify when the chunk is read again (it ended, its channel was
    /// disabled, it aged out), and the chunk then reaches past `through`: the stamps of those channels are folded too,
    /// and the chunk read once more, until it stays within what was folded.
    private func foldAndReread(
        _ push: PushForDelivery, after: UUID?, upTo: UUID?, through: UUID?, limit: Int, rowRefs: Bool = true
    ) async throws -> [PushTargets.Target] {
        var through = through
        while true {
            try await self.foldStamps(blocking: push, after: after, through: through)
            let targets = try await push.targets.chunk(
                after: after, upTo: upTo, limit: limit, rowRefs: rowRefs, on: self.database.client,
                logger: self.logger
            ).targets
            guard let folded = through, let last = targets.last?.channelID, folded.precedes(last) else {
                return targets
            }
            through = targets.count == limit ? last : upTo
        }
    }

    /// Reads batch `seq` of `pushID` for a run of its job and, while it is queued, claims it with a new `runner`: a run
    /// that claimed it before (a worker that lost its lease but still sends) has its records refused from then on, so
    /// the batch goes on from the cursor read here and no chunk is counted twice (sql/0027).
    public func claimBatch(pushID: UUID, appID: Int64, seq: Int32) async throws -> PushBatch? {
        let rows = try await self.database.client.execute(
            ClaimBatchStatement.prepared(pushID: pushID, appID: appID, seq: seq), logger: self.logger)
        for try await row in rows {
            let claimed = try ClaimBatchStatement.decode(row)
            return PushBatch(
                pushID: pushID, seq: seq, lower: claimed.lower, upper: claimed.upper, cursor: claimed.cursor,
                state: claimed.state, sentByFanout: claimed.sentByFanout, runner: claimed.runner)
        }
        return nil
    }

    public func batch(pushID: UUID, appID: Int64, seq: Int32) async throws -> PushBatch? {
        let rows = try await self.database.client.execute(
            ReadBatchStatement.prepared(pushID: pushID, appID: appID, seq: seq), logger: self.logger)
        for try await row in rows {
            let read = try ReadBatchStatement.decode(row)
            return PushBatch(
                pushID: pushID, seq: seq, lower: read.lower, upper: read.upper, cursor: read.cursor, state: read.state,
                sentByFanout: read.sentByFanout)
        }
        return nil
    }
}
