import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// The outcome of one chunk of a batch, ready to be written.
public struct ChunkOutcome: Sendable {
    public var accepted: [PushTargets.Target] = []
    public var failures: [(target: PushTargets.Target, failure: DeliveryFailure)] = []
    public var skipped = 0
    /// Targets a newer push to the same name reaches instead (`PushOrder`).
    public var superseded = 0
    /// Starts held (`TargetHold`): the name active or a start still unconfirmed; the channel's start budget spent.
    public var alreadyActive = 0
    public var startBudget = 0
    public var suspectToken = 0
    /// Priority-10 updates sent at priority 5 under the update budget.
    public var downgraded = 0
    /// Instances that accepted a priority-10 update their budget counts.
    public var budgeted: [Int64] = []
    public var configurationError: String?
    /// The last channel id of the chunk: where the batch resumes.
    public var cursor: UUID
    public var processed: Int
    /// Invalidations apply only to tokens not registered again since this instant.
    public var sendStartedAt: Date

    public init(cursor: UUID, processed: Int, sendStartedAt: Date) {
        self.cursor = cursor
        self.processed = processed
        self.sendStartedAt = sendStartedAt
    }

    public var sent: Int { self.accepted.count + self.failures.count }
}

extension DeliveryLedger {
    /// Writes a chunk's outcome: instance timestamps (and ends), dead tokens, failure rows, the batch's counts and
    /// cursor; a configuration error fails the push and stops its batches. `lastOfBatch`: nothing follows this chunk
    /// in its batch, which is marked finished with it. A chunk that all went through and is not the last is one
    /// statement (atomic by itself, no BEGIN / COMMIT round trips); anything else is one transaction.
    /// `deferStamps`: an update's instance stamps go to `delivery_stamps` and stay pending there, read where they are
    /// (`DeliveryLedger+DeferredStamps.swift`); a push sent in batches does that, a single-chunk push stamps at once.
    /// The same statement declares the batch's next chunk as in flight (`DeliveryLedger+Supersession.swift`).
    /// Returns how many superseding pushes the next chunk must honour, or nil once the batch stopped (the push was
    /// canceled, or failed).
    @discardableResult
    public func record(
        _ outcome: ChunkOutcome, push: PushForDelivery, seq: Int32, lastOfBatch: Bool = false,
        deferStamps: Bool = false, runner: UUID? = nil
    ) async throws -> Int? {
        let logger = self.database.logger
        let counts = Self.stampAndCount(
            outcome, push: push, seq: seq, deferStamps: deferStamps, last: lastOfBatch, runner: runner)
        if outcome.failures.isEmpty && outcome.configurationError == nil && !lastOfBatch {
            var gen: Int?
            if let statement = UpdateChunkRecordStatement(counts) {
                for try await row in try await self.database.client.execute(statement, logger: logger)
                where row.state == .queued {
                    gen = Int(row.superseding)
                }
            } else {
                gen = try await Self.batchGoesOn(self.database.client.query(counts, logger: logger))
            }
            if gen == nil {
                try await self.database.client.query(
                    Self.settleStoppedEstimates(pushID: push.id, seq: seq), logger: logger)
            }
            return gen
        }
        return try await self.database.transaction { connection in
            let rows = try await connection.query(counts, logger: logger)
            var answered = false
            var goesOn: Int?
            for try await (state, superseding) in rows.decode((BatchState, Int32).self) {
                answered = true
                if state == .queued { goesOn = Int(superseding) }
            }
            // No row: another run claimed the batch (`claimBatch`). It sends this chunk again and records its
            // failures and any configuration error itself; this run's answers are not counted twice.
            guard answered else { return nil }
            if goesOn == nil {
                try await connection.query(Self.settleStoppedEstimates(pushID: push.id, seq: seq), logger: logger)
            }
            let isStart = push.targets.event == .start
            let dead = outcome.failures.filter(\.failure.invalidatesToken)
            if !dead.isEmpty {
                if isStart {
                    try await connection.query(
                        """
                        UPDATE push_to_start_tokens p
                        SET state = 'invalid', invalid_reason = x.reason, invalidated_at = now()
                        FROM unnest(\(dead.map(\.target.channelID))::uuid[], \(dead.map(\.target.token))::text[],
                                    \(dead.map(\.failure.reason))::text[]) AS x(channel_id, token, reason)
                        WHERE p.channel_id = x.channel_id AND p.attributes_type = \(push.targets.attributesType ?? "")
                          AND p.token = x.token AND p.state = 'active' AND p.updated_at < \(outcome.sendStartedAt)
                        """, logger: logger)
                } else {
                    try await connection.query(
                        """
                        UPDATE live_activities l
                        SET state = 'invalid', invalid_reason = x.reason, invalidated_at = now()
                        FROM unnest(\(dead.map(\.target.instanceID))::int8[], \(dead.map(\.target.token))::text[],
                                    \(dead.map(\.failure.reason))::text[]) AS x(id, token, reason)
                        WHERE l.id = x.id AND l.push_token = x.token AND l.state = 'active'
                          AND l.token_updated_at < \(outcome.sendStartedAt)
                        """, logger: logger)
                }
            }
            if !outcome.failures.isEmpty {
                let failures = outcome.failures
                try await connection.query(
                    """
                    INSERT INTO push_failures (push_id, app_id, channel_id, token, status, reason, push_created_at)
                    SELECT \(push.id), \(push.appID), c, t, nullif(s, 0), r,
                           (SELECT created_at FROM pushes WHERE id = \(push.id))
                    FROM unnest(\(failures.map(\.target.channelID))::uuid[], \(failures.map(\.target.token))::text[],
                                \(failures.map { Int32($0.failure.status ?? 0) })::int4[],
                                \(failures.map(\.failure.reason))::text[]) AS x(c, t, s, r)
                    """, logger: logger)
                try await connection.query(
                    """
                    INSERT INTO push_failure_counts (push_id, reason, count, push_created_at)
                    SELECT \(push.id), r, count(*), (SELECT created_at FROM pushes WHERE id = \(push.id))
                    FROM unnest(\(failures.map(\.failure.reason))::text[]) AS x(r) GROUP BY r
                    ON CONFLICT (push_id, reason, push_created_at) DO UPDATE SET count = push_failure_counts.count + excluded.count
                    """, logger: logger)
            }
            if let reason = outcome.configurationError {
                try await connection.query(
                    """
                    UPDATE pushes SET state = 'failed', failure_reason = \(reason), finished_at = now()
                    WHERE id = \(push.id) AND state = 'sending'
                    """, logger: logger)
                try await Self.stopBatches(pushID: push.id, on: connection, logger: logger)
                return nil
            }
            if lastOfBatch, goesOn != nil {
                try await Self.finishBatch(pushID: push.id, seq: seq, runner: runner, on: connection, logger: logger)
            }
            return goesOn
        }
    }

    /// One statement: the delivery stamp of every accepted instance (an `end` also ends it; a deferred update's goes
    /// to one pending `delivery_stamps` row, its push to `delivery_stamp_pushes`), and the chunk's counts and cursor on its batch row, answering the
    /// batch's state and superseding count. A batch that was stopped while this chunk was in flight takes back from its
    /// `canceled` what the chunk did process. Unless `last`, the batch's next chunk is declared in flight.
    /// A stamp moves an instance's last push only forward in `PushOrder` (timestamp, then acceptance).
    ///
    /// The stamp goes to each row where the chunk's select found it (`ctid`, checked against the id), which spares a
    /// primary-key probe per instance. A row that has moved since (a rotation wrote a new version), or whose place the
    /// select did not read (`Target.row` empty), is stamped by id.
    static func stampAndCount(
        _ outcome: ChunkOutcome, push: PushForDelivery, seq: Int32, deferStamps: Bool, last: Bool = false,
        runner: UUID? = nil
    ) -> PostgresQuery {
        let event = push.targets.event
        let later = deferStamps && event == .update ? outcome.accepted : []
        // The channels the deferred row holds, first to last (answers arrive in any order).
        let channels = later.map(\.channelID)
        let range = (
            first: channels.min { $0.precedes($1) } ?? outcome.cursor,
            last: channels.max { $0.precedes($1) } ?? outcome.cursor
        )
        let stamped = event == .start || !later.isEmpty ? [] : outcome.accepted
        let ends = event == .end ? ", state = 'ended', ended_reason = 'end_pushed', ended_at = now()" : ""
        // A row is updated once per statement: instances stamped here count their budget in the same update.
        let inStamp = stamped.isEmpty ? [] : outcome.budgeted
        let p10 =
            inStamp.isEmpty
            ? ""
            : ", p10_count = CASE WHEN NOT l.id = ANY(b.ids) THEN l.p10_count"
                + " WHEN l.p10_hour_start > now() - interval '1 hour' THEN l.p10_count + 1 ELSE 1 END,"
                + " p10_hour_start = CASE WHEN NOT l.id = ANY(b.ids) THEN l.p10_hour_start"
                + " WHEN l.p10_hour_start > now() - interval '1 hour' THEN l.p10_hour_start ELSE now() END"
        let (ts, pushSeq) = (push.timestamp, push.seq)
        // An accepted start is an attempt, confirmed when the channel registers the name within the app's window.
        let attempts = event == .start ? outcome.accepted : []
        return """
            WITH attempts AS (
                INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token, window_until,
                                            push_created_at)
                SELECT \(push.id), \(push.appID), x.c, \(push.targets.name ?? ""), \(push.targets.attributesType ?? ""),
                       x.t, now() + (SELECT start_confirm_window FROM apps WHERE id = \(push.appID)),
                       (SELECT created_at FROM pushes WHERE id = \(push.id))
                FROM unnest(\(attempts.map(\.channelID))::uuid[], \(attempts.map(\.token))::text[]) AS x(c, t)
                ON CONFLICT (push_id, channel_id, push_created_at) DO NOTHING
            ),
            budgeted AS (
                UPDATE live_activities l
                SET p10_count = CASE WHEN l.p10_hour_start > now() - interval '1 hour' THEN l.p10_count + 1 ELSE 1 END,
                    p10_hour_start = CASE WHEN l.p10_hour_start > now() - interval '1 hour' THEN l.p10_hour_start
                                          ELSE now() END
                WHERE l.id = ANY(\(stamped.isEmpty ? outcome.budgeted : [])::int8[])
            ),
            deferred AS (
                INSERT INTO delivery_stamps (push_id, app_id, activity_name, apns_timestamp, push_seq, instance_ids,
                                             first_channel, last_channel)
                SELECT \(push.id), \(push.appID), \(push.targets.name ?? ""), \(ts), \(pushSeq),
                       \(later.map(\.instanceID))::int8[], \(range.first), \(range.last)
                WHERE \(later.count) > 0
            ),
            deferring AS (
                INSERT INTO delivery_stamp_pushes (push_id, app_id, activity_name, apns_timestamp, push_seq)
                SELECT \(push.id), \(push.appID), \(push.targets.name ?? ""), \(ts), \(pushSeq)
                WHERE \(later.count) > 0
                ON CONFLICT (push_id) DO NOTHING
            ),
            targets AS (
                SELECT nullif(r, '')::tid AS row, id
                FROM unnest(\(stamped.map(\.row))::text[], \(stamped.map(\.instanceID))::int8[]) AS x(r, id)
            ),
            stamp AS (SELECT \(ts)::int8 AS ts, \(pushSeq)::int8 AS seq, \(push.id)::uuid AS push_id),
            b AS (SELECT \(inStamp)::int8[] AS ids),
            in_place AS (
                UPDATE live_activities l SET \(unescaped: Self.stampColumns)\(unescaped: ends)\(unescaped: p10)
                FROM targets x, stamp s, b
                WHERE l.ctid = x.row AND l.id = x.id AND l.state = 'active'
                RETURNING l.id
            ),
            moved AS (
                UPDATE live_activities l SET \(unescaped: Self.stampColumns)\(unescaped: ends)\(unescaped: p10)
                FROM stamp s, b
                WHERE l.id = ANY(ARRAY(SELECT id FROM targets EXCEPT SELECT id FROM in_place)) AND l.state = 'active'
            )
            UPDATE push_batches
            SET cursor_channel = \(outcome.cursor), processed = processed + \(Int32(outcome.processed)),
                sent = sent + \(Int64(outcome.sent)), accepted = accepted + \(Int64(outcome.accepted.count)),
                failed = failed + \(Int64(outcome.failures.count)), skipped = skipped + \(Int64(outcome.skipped)),
                superseded = superseded + \(Int64(outcome.superseded)),
                already_active = already_active + \(Int64(outcome.alreadyActive)),
                start_budget = start_budget + \(Int64(outcome.startBudget)),
                suspect_token = suspect_token + \(Int64(outcome.suspectToken)),
                downgraded = downgraded + \(Int64(outcome.downgraded)),
                first_request_at = least(first_request_at, \(outcome.sent > 0 ? outcome.sendStartedAt : nil)),
                canceled = CASE WHEN state = 'stopped' THEN greatest(canceled - \(Int64(outcome.processed)), 0)
                           ELSE canceled END,
                sending_gen = superseded_gen,
                sending_until = CASE WHEN \(last) OR state <> 'queued' THEN NULL
                                     ELSE now() + make_interval(secs => \(Self.leaseSeconds)) END
            WHERE push_id = \(push.id) AND seq = \(seq) AND runner IS NOT DISTINCT FROM \(runner)
            RETURNING state, superseded_gen
            """
    }

    /// The stamp of instance `l` by push `s` (its `ts`, `seq` and `push_id`): the last push moves only forward in
    /// `PushOrder`; the update time is the delivery's.
    static let stampColumns = """
        (last_apns_timestamp, last_push_seq, last_update_at, last_push_id) =
            (SELECT CASE WHEN o.newer THEN s.ts ELSE l.last_apns_timestamp END,
                    CASE WHEN o.newer THEN s.seq ELSE l.last_push_seq END, now(),
                    CASE WHEN o.newer THEN s.push_id ELSE l.last_push_id END
             FROM (SELECT (s.ts, s.seq) >= (coalesce(l.last_apns_timestamp, 0), coalesce(l.last_push_seq, 0)) AS newer) o)
        """

    /// The batch's superseding count when it goes on, nil once it was stopped.
    private static func batchGoesOn(_ rows: CollectedRows<PostgresRow>) async throws -> Int? {
        var gen: Int?
        for try await (state, superseding) in rows.decode((BatchState, Int32).self) where state == .queued {
            gen = Int(superseding)
        }
        return gen
    }

    /// Stops the push's unfinished batches: what they had not processed yet is `canceled`. Answers how many that is.
    @discardableResult
    static func stopBatches(pushID: UUID, on connection: DatabaseConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(
            """
            WITH stopped AS (
                UPDATE push_batches SET state = 'stopped', canceled = greatest(targets - processed, 0)
                WHERE push_id = \(pushID) AND state = 'queued'
                RETURNING canceled
            )
            SELECT coalesce(sum(canceled), 0)::int8 FROM stopped
            """, logger: logger)
        var canceled: Int64 = 0
        for try await count in rows.decode(Int64.self) { canceled = count }
        try await connection.query(Self.settleStoppedEstimates(pushID: pushID), logger: logger)
        return canceled
    }

    /// A stopped batch whose size was an estimate (`BatchPlan.estimated`) has read what it read and cancels the rest
    /// of the estimate: its `targets` become `processed + canceled` (more than the estimate when it had read more),
    /// and the push's `targeted` moves by the difference, so `sent + superseded + skipped + canceled = targeted`
    /// holds for it too. Run after batches are stopped (all of them, `seq` nil) and after a chunk recorded on a
    /// stopped batch (that batch alone: two records settling each other's rows deadlocked and lost a record); the
    /// rows are locked first, so two of these at once move `targeted` once.
    static func settleStoppedEstimates(pushID: UUID, seq: Int32? = nil) -> PostgresQuery {
        """
        WITH locked AS (
            SELECT seq, targets FROM push_batches
            WHERE push_id = \(pushID) AND state = 'stopped' AND targets_estimated
              AND (\(seq)::int4 IS NULL OR seq = \(seq)::int4)
            FOR UPDATE
        ),
        settled AS (
            UPDATE push_batches b SET targets = b.processed + b.canceled
            FROM locked
            WHERE b.push_id = \(pushID) AND b.seq = locked.seq AND b.targets <> b.processed + b.canceled
            RETURNING (b.processed + b.canceled - locked.targets)::int8 AS moved
        )
        UPDATE pushes SET targeted = targeted + (SELECT sum(moved) FROM settled)
        WHERE id = \(pushID) AND EXISTS (SELECT 1 FROM settled)
        """
    }

    /// Marks a batch finished; the last one to finish marks the push done.
    public func finishBatch(pushID: UUID, seq: Int32, runner: UUID? = nil) async throws {
        let logger = self.database.logger
        try await self.database.transaction { connection in
            try await Self.finishBatch(pushID: pushID, seq: seq, runner: runner, on: connection, logger: logger)
        }
    }

    /// Marks the batch done. Targets its plan counted that its chunks no longer found (ended by a newer `end` push,
    /// ended or untracked by the device, their channel deleted, between the plan and their chunk) count as skipped,
    /// so that `sent + superseded + skipped + canceled = targeted` holds (the ordering test caught 100 of 2,000
    /// missing when a newer end reached a range before an older update's batch read it). A batch whose size was
    /// estimated (`BatchPlan.estimated`) counted its targets as it read them: its `targets` become that count, and
    /// the push's `targeted` moves by the difference.
    private static func finishBatch(
        pushID: UUID, seq: Int32, runner: UUID?, on connection: DatabaseConnection, logger: Logger
    ) async throws {
        let finished = try await connection.query(
            """
            UPDATE push_batches b
            SET state = 'done',
                skipped = b.skipped + CASE WHEN b.targets_estimated THEN 0 ELSE greatest(b.targets - b.processed, 0) END,
                targets = CASE WHEN b.targets_estimated THEN b.processed ELSE b.targets END
            FROM (SELECT targets FROM push_batches WHERE push_id = \(pushID) AND seq = \(seq)) o
            WHERE b.push_id = \(pushID) AND b.seq = \(seq) AND b.state = 'queued'
              AND b.runner IS NOT DISTINCT FROM \(runner)
            RETURNING (b.targets - o.targets)::int8
            """, logger: logger)
        var correction: Int64?
        for try await difference in finished.decode(Int64.self) { correction = difference }
        guard let correction else { return }
        let rows = try await connection.query(
            """
            UPDATE pushes SET batches_done = batches_done + 1, targeted = targeted + \(correction),
                state = CASE WHEN batches_done + 1 >= batches_total AND state = 'sending' THEN 'done' ELSE state END,
                finished_at = CASE WHEN batches_done + 1 >= batches_total AND state = 'sending' THEN now()
                                   ELSE finished_at END
            WHERE id = \(pushID)
            RETURNING coalesce(batches_done = batches_total, false)
                AND EXISTS (SELECT 1 FROM delivery_stamp_pushes dp
                            WHERE dp.app_id = pushes.app_id AND dp.activity_name = pushes.activity_name
                              AND dp.push_id <> pushes.id)
            """, logger: logger)
        var pushDone = false
        for try await done in rows.decode(Bool.self) { pushDone = done }
        // The push's last batch, if other pushes of its name have stamps pending: those this push supersedes are
        // dropped now (`DeliveryLedger+DeferredStamps.swift`), not at the recurring run's next slot.
        if pushDone {
            _ = try await PostgresJobQueue.enqueue(
                [
                    JobRequest(
                        kind: .foldStamps, appID: 0, priority: -1, maxAttempts: 3,
                        dedupeKey: "\(JobKind.foldStamps)@push:\(pushID)")
                ], on: connection, logger: logger)
        }
    }
}
