import Foundation
import LiveActivitiesCore
import Logging
import Metrics
import PostgresNIO

public struct PostgresActivityStore: ActivityStore {
    let database: Database
    let trackBatcher: TrackBatcher

    /// `metrics`: where `gateway_track_statement_calls` (calls per shared track statement) goes.
    public init(database: Database, metrics: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.database = database
        self.trackBatcher = TrackBatcher(client: database.client, logger: database.logger, metrics: metrics)
    }

    /// Buckets for `gateway_track_statement_calls`, for a Prometheus factory's `valueHistogramBuckets`.
    public static let callsPerStatementHistogram = (
        label: TrackBatcher.callsPerStatementMetric, buckets: TrackBatcher.callsPerStatementBuckets
    )

    var logger: Logger { self.database.logger }

    public func setPushToStart(appID: Int64, channelID: UUID, attributesType: String, token: String) async throws
        -> PushToStartResult
    {
        // One statement: the channel (scoped by app), the upsert, and whether anything changed. Every registration,
        // even an unchanged one, clears a suspect token (`registered_again_at`).
        let rows = try await self.database.client.query(
            """
            WITH ch AS (
                SELECT c.id, a.apns_environment FROM channels c JOIN apps a ON a.id = c.app_id
                WHERE c.id = \(channelID) AND c.app_id = \(appID)
            ), old AS (
                SELECT p.token = \(token) AND p.state = 'active' AND p.environment = ch.apns_environment AS same
                FROM push_to_start_tokens p JOIN ch ON p.channel_id = ch.id
                WHERE p.attributes_type = \(attributesType)
            ), up AS (
                INSERT INTO push_to_start_tokens AS p (channel_id, app_id, attributes_type, token, environment)
                SELECT id, \(appID), \(attributesType), \(token), apns_environment FROM ch
                ON CONFLICT (channel_id, attributes_type) DO UPDATE
                SET token = excluded.token, environment = excluded.environment, state = 'active',
                    invalid_reason = NULL, invalidated_at = NULL, registered_again_at = now(),
                    updated_at = CASE WHEN p.token <> excluded.token OR p.state <> 'active'
                                           OR p.environment <> excluded.environment THEN now() ELSE p.updated_at END
                RETURNING (xmax = 0) AS created
            )
            SELECT (SELECT count(*) FROM ch), (SELECT created FROM up), (SELECT same FROM old)
            """,
            logger: self.logger
        )
        for try await (channels, created, same) in rows.decode((Int64, Bool?, Bool?).self) {
            guard channels == 1 else { throw RegistryError.channelNotFound }
            if created == true { return .created }
            return same == true ? .unchanged : .replaced
        }
        throw RegistryError.channelNotFound
    }

    public func deletePushToStart(appID: Int64, channelID: UUID, attributesType: String) async throws -> Int {
        try await self.countingChannelStatement(
            """
            WITH ch AS (SELECT id FROM channels WHERE id = \(channelID) AND app_id = \(appID)),
            done AS (
                DELETE FROM push_to_start_tokens
                WHERE channel_id IN (SELECT id FROM ch) AND attributes_type = \(attributesType) RETURNING 1
            )
            SELECT (SELECT count(*) FROM ch), (SELECT count(*) FROM done)
            """)
    }

    public func track(
        appID: Int64, channelID: UUID, name: String, _ tracking: ActivityTracking, proof: ChannelProof = .server
    ) async throws -> ActivityTrackDecision {
        // Most calls take the lock-free path: one prepared statement (two for a replacement), no transaction, shared
        // with the calls that come at the same time (`TrackBatcher`: one round trip for many under load). Calls
        // that lose a race there, and calls with an end time, run serialized: the same statements in a transaction,
        // after the channel row's lock, so they see what every call for the channel before them committed. A lock-free
        // call can still win a race against them; the transaction then runs again.
        if tracking.endAt == nil,
            let (decision, _) = try await self.trackStatements(
                appID: appID, channelID: channelID, name: name, tracking, proof: proof, on: nil)
        {
            return decision
        }
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await self.trackSerialized(
                    appID: appID, channelID: channelID, name: name, tracking, proof: proof)
            } catch let error where attempt < 4 && (error.isUniqueViolation || error is StaleRead) {
                continue
            }
        }
    }

    private struct StaleRead: Error {}

    private func trackSerialized(
        appID: Int64, channelID: UUID, name: String, _ tracking: ActivityTracking, proof: ChannelProof
    ) async throws -> ActivityTrackDecision {
        try await self.database.transaction { connection in
            // Read committed: the statements after this lock take snapshots that include what the holder committed.
            let locked = try await connection.query(
                "SELECT 1 FROM channels WHERE id = \(channelID) AND app_id = \(appID) FOR NO KEY UPDATE",
                logger: self.logger)
            for try await _ in locked {}
            guard
                let (decision, instanceID) = try await self.trackStatements(
                    appID: appID, channelID: channelID, name: name, tracking, proof: proof, on: connection)
            else { throw StaleRead() }
            if let endAt = tracking.endAt {
                try await Self.scheduleEnd(
                    at: endAt, appID: appID, channelID: channelID, name: name, instanceID: instanceID, on: connection,
                    logger: self.logger)
            }
            return decision
        }
    }

    public func untrack(appID: Int64, channelID: UUID, name: String, _ end: ActivityEnd) async throws
        -> ActivityEndResult
    {
        // One statement. The instance: the current one under the name (with a system activity id, only if it is
        // that one), or for a dismissal with an id, that instance once it has ended. An `at` before it started is
        // taken as its start: a device's clock may lag the gateway's, and its end is not lost for that. A
        // concurrent end of the same instance counts once:
        // the update re-checks the state it read.
        let dismissed = end.reason == .dismissed
        let rows = try await self.database.client.query(
            """
            WITH ch AS (SELECT id FROM channels WHERE id = \(channelID) AND app_id = \(appID)),
            target AS (
                SELECT la.id, la.state IN ('active', 'invalid') AS current, la.dismissed_at IS NOT NULL AS was_dismissed,
                       greatest(coalesce(\(end.at), now()), la.started_at) AS at
                FROM live_activities la
                WHERE la.channel_id IN (SELECT id FROM ch) AND la.name = \(name)
                  AND CASE WHEN \(end.systemActivityID)::text IS NULL THEN la.state IN ('active', 'invalid')
                           ELSE la.system_activity_id = \(end.systemActivityID)
                                AND (la.state IN ('active', 'invalid') OR \(dismissed)) END
                ORDER BY la.state IN ('active', 'invalid') DESC, la.id DESC
                LIMIT 1
            ),
            done AS (
                UPDATE live_activities la
                SET state = CASE WHEN t.current THEN 'ended' ELSE la.state END,
                    ended_reason = CASE WHEN t.current THEN 'untracked' ELSE la.ended_reason END,
                    ended_at = CASE WHEN t.current THEN now() ELSE la.ended_at END,
                    device_ended_at = CASE WHEN t.current THEN t.at ELSE la.device_ended_at END,
                    dismissed_at = CASE WHEN \(dismissed) THEN coalesce(la.dismissed_at, t.at) ELSE la.dismissed_at END
                FROM target t
                WHERE la.id = t.id AND (la.state IN ('active', 'invalid')) = t.current
                  AND (t.current OR NOT t.was_dismissed)
                RETURNING t.current
            )
            SELECT (SELECT count(*) FROM ch), (SELECT count(*) FROM done WHERE current), (SELECT count(*) FROM done),
                   coalesce((SELECT was_dismissed AND NOT current FROM target), false)
            """,
            logger: self.logger)
        for try await (channels, ended, changed, already) in rows.decode((Int64, Int64, Int64, Bool).self) {
            guard channels == 1 else { throw RegistryError.channelNotFound }
            return ActivityEndResult(
                ended: Int(ended), recorded: changed > 0 || (dismissed && already), isNew: changed > 0)
        }
        throw RegistryError.channelNotFound
    }

    public func reconcile(
        appID: Int64, channelID: UUID, keeping systemActivityIDs: [String], attributesTypes: [String]?
    ) async throws -> Int {
        try await self.countingChannelStatement(
            """
            WITH ch AS (SELECT id FROM channels WHERE id = \(channelID) AND app_id = \(appID)),
            done AS (
                UPDATE live_activities SET state = 'ended', ended_reason = 'reconciled', ended_at = now()
                WHERE channel_id IN (SELECT id FROM ch) AND state IN ('active', 'invalid')
                  AND system_activity_id <> ALL(\(systemActivityIDs)::text[])
                  AND (\(attributesTypes)::text[] IS NULL OR attributes_type = ANY(\(attributesTypes)::text[]))
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM ch), (SELECT count(*) FROM done)
            """)
    }

    /// Runs a statement answering (channels found, rows changed); throws when the channel is not this app's.
    private func countingChannelStatement(_ query: PostgresQuery) async throws -> Int {
        let rows = try await self.database.client.query(query, logger: self.logger)
        for try await (channels, changed) in rows.decode((Int64, Int64).self) {
            guard channels == 1 else { throw RegistryError.channelNotFound }
            return Int(changed)
        }
        throw RegistryError.channelNotFound
    }

    public func summaries(appID: Int64, channelID: UUID) async throws -> ([ActivitySummary], [PushToStartSummary]) {
        var activities: [ActivitySummary] = []
        let rows = try await self.database.client.execute(
            ActivitySummariesStatement(channelID: channelID, appID: appID), logger: self.logger)
        for try await row in rows {
            activities.append(
                .init(
                    name: row.0, attributesType: row.1, systemActivityID: row.2, state: row.3, started: row.4,
                    lastUpdate: row.5))
        }
        var tokens: [PushToStartSummary] = []
        let tokenRows = try await self.database.client.execute(
            PushToStartSummariesStatement(channelID: channelID, appID: appID), logger: self.logger)
        for try await row in tokenRows {
            tokens.append(
                .init(attributesType: row.0, state: row.1, updated: row.2, registered: row.3, lastStart: row.4))
        }
        return (activities, tokens)
    }

    /// An end time given at tracking: one pending `end_at` schedule per instance (a repeat moves it).
    static func scheduleEnd(
        at endAt: Int64, appID: Int64, channelID: UUID, name: String, instanceID: Int64,
        on connection: DatabaseConnection,
        logger: Logger
    ) async throws {
        let sendAt = Date(timeIntervalSince1970: TimeInterval(max(endAt, Int64(Date().timeIntervalSince1970))))
        let push = PushRequest(audience: .channels([channelID]), liveActivity: .init(event: .end, name: name))
        let json = try PostgresScheduleStore.json(push)
        let moved = try await connection.query(
            """
            UPDATE schedules SET send_at = \(sendAt), updated_at = now()
            WHERE instance_id = \(instanceID) AND name = 'end_at' AND state = 'pending' AND channel_id = \(channelID)
            RETURNING id
            """,
            logger: logger)
        var existing: UUID?
        for try await id in moved.decode(UUID.self) { existing = id }
        if let existing {
            try await connection.query(
                "UPDATE jobs SET run_at = \(sendAt) WHERE dedupe_key = \(ScheduleFireJob.dedupeKey(existing)) AND state = 'queued'",
                logger: logger)
            return
        }
        let id = UUID()
        try await connection.query(
            """
            INSERT INTO schedules (id, app_id, name, source, channel_id, activity_name, instance_id, push, send_at)
            VALUES (\(id), \(appID), 'end_at', 'activity', \(channelID), \(name), \(instanceID), \(json)::jsonb, \(sendAt))
            """,
            logger: logger)
        _ = try await PostgresJobQueue.enqueue(
            [try PostgresScheduleStore.fireJob(appID: appID, id: id, at: sendAt)], on: connection, logger: logger)
    }
}
