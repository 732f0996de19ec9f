import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

public struct PostgresScheduleStore: ScheduleStore {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    private var logger: Logger { self.database.logger }

    static func json(_ push: PushRequest) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(push), as: UTF8.self)
    }

    static func fireJob(appID: Int64, id: UUID, at sendAt: Date) throws -> JobRequest {
        try JobRequest(
            ScheduleFireJob(scheduleID: id), appID: appID, runAt: sendAt, priority: 2,
            dedupeKey: ScheduleFireJob.dedupeKey(id))
    }

    public func create(appID: Int64, _ requests: [ScheduleRequest], now: Date) async throws -> [(
        id: UUID, sendAt: Date
    )] {
        var rows: [(UUID, Date, String?, String)] = []
        for (index, request) in requests.enumerated() {
            let prefix = requests.count > 1 ? "[\(index)]." : ""
            let sendAt = try request.time.resolve(now: now, path: prefix + request.timePath())
            // A scheduled push's own timestamp is bounded by its send time.
            try request.push.checkTimestamp(sentAt: sendAt, prefix: prefix + "push.")
            rows.append((UUID(), sendAt, request.name, try Self.json(request.push)))
        }
        try await self.database.transaction { connection in
            try await Quotas.checkSchedules(appID: appID, adding: rows.count, on: connection, logger: self.logger)
            try await connection.query(
                """
                INSERT INTO schedules (id, app_id, name, source, push, send_at)
                SELECT id, \(appID), nullif(name, ''), 'api', push::jsonb, send_at
                FROM unnest(\(rows.map(\.0))::uuid[], \(rows.map { $0.2 ?? "" })::text[], \(rows.map(\.3))::text[],
                            \(rows.map(\.1))::timestamptz[]) AS x(id, name, push, send_at)
                """,
                logger: self.logger)
            _ = try await PostgresJobQueue.enqueue(
                try rows.map { try Self.fireJob(appID: appID, id: $0.0, at: $0.1) }, on: connection, logger: self.logger
            )
        }
        return rows.map { ($0.0, $0.1) }
    }

    public func scheduleUpdate(
        appID: Int64, channelID: UUID, name: String, _ request: ActivityUpdateRequest, now: Date,
        idempotencyKey: String?
    ) async throws -> (id: UUID, sendAt: Date) {
        let path = if case .at = request.time { "send_at" } else { "offset" }
        let sendAt = try request.time.resolve(now: now, path: path)
        let push = try Self.json(try request.push(channelID: channelID, name: name))
        let id = UUID()
        let stored = try await self.database.transaction { connection in
            try await DeviceOperations.once(
                appID: appID, channelID: channelID, route: .activityUpdate, key: idempotencyKey, on: connection,
                logger: self.logger
            ) { connection in
                try await self.insertUpdate(
                    id: id, appID: appID, channelID: channelID, name: name, request, push: push, sendAt: sendAt,
                    on: connection)
                return ScheduledUpdate(id: id, sendAt: sendAt)
            }
        }
        return (stored.answer.id, stored.answer.sendAt)
    }

    /// The answer to a device-scheduled update, as an idempotent repeat gets it back.
    struct ScheduledUpdate: Codable, Sendable {
        var id: UUID
        var sendAt: Date
    }

    private func insertUpdate(
        id: UUID, appID: Int64, channelID: UUID, name: String, _ request: ActivityUpdateRequest, push: String,
        sendAt: Date, on connection: DatabaseConnection
    ) async throws {
        let rows = try await connection.query(
            """
            SELECT c.id, la.id FROM channels c
            LEFT JOIN live_activities la ON la.channel_id = c.id AND la.name = \(name) AND la.state = 'active'
            WHERE c.id = \(channelID) AND c.app_id = \(appID)
            """,
            logger: self.logger)
        var found: (UUID, Int64?)?
        for try await row in rows.decode((UUID, Int64?).self) { found = row }
        guard let found else { throw RegistryError.channelNotFound }
        guard let instance = found.1 else { throw ScheduleError.activityNotTracked(name: name) }
        try await Quotas.checkPendingUpdates(
            appID: appID, channelID: channelID, name: name, on: connection, logger: self.logger)
        try await connection.query(
            """
            INSERT INTO schedules (id, app_id, name, source, channel_id, activity_name, instance_id, push, send_at)
            VALUES (\(id), \(appID), \(request.scheduleName), 'activity', \(channelID), \(name), \(instance),
                    \(push)::jsonb, \(sendAt))
            """,
            logger: self.logger)
        _ = try await PostgresJobQueue.enqueue(
            [try Self.fireJob(appID: appID, id: id, at: sendAt)], on: connection, logger: self.logger)
    }

    public func cancelUpdates(appID: Int64, channelID: UUID, name: String) async throws -> Int {
        try await self.database.transaction { connection in
            let channel = try await connection.query(
                "SELECT id FROM channels WHERE id = \(channelID) AND app_id = \(appID)", logger: self.logger
            ).collect()
            guard !channel.isEmpty else { throw RegistryError.channelNotFound }
            let rows = try await connection.query(
                """
                WITH canceled AS (
                    UPDATE schedules SET state = 'canceled', updated_at = now()
                    WHERE channel_id = \(channelID) AND activity_name = \(name) AND state = 'pending' AND app_id = \(appID)
                    RETURNING 'schedule:' || id::text AS key
                ), jobs_gone AS (
                    DELETE FROM jobs WHERE dedupe_key IN (SELECT key FROM canceled) AND state = 'queued'
                )
                SELECT count(*) FROM canceled
                """,
                logger: self.logger)
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    static let summaryColumns = "id, name, state, send_at, push_id, skip_reason, push::text"

    static func summary(_ row: (UUID, String?, ScheduleState, Date, UUID?, String?, String)) -> ScheduleSummary {
        ScheduleSummary(
            scheduleID: row.0, name: row.1, state: row.2, sendAt: row.3, pushID: row.4, skipReason: row.5,
            push: (try? JSONDecoder().decode(JSONValue.self, from: Data(row.6.utf8))) ?? .null)
    }

    public func list(appID: Int64, limit: Int) async throws -> [ScheduleSummary] {
        let rows = try await self.database.client.query(
            """
            SELECT id, name, state, send_at, push_id, skip_reason, push::text FROM schedules
            WHERE app_id = \(appID) AND source = 'api' ORDER BY send_at DESC LIMIT \(limit)
            """,
            logger: self.logger)
        var result: [ScheduleSummary] = []
        for try await row in rows.decode((UUID, String?, ScheduleState, Date, UUID?, String?, String).self) {
            result.append(Self.summary(row))
        }
        return result
    }

    public func get(appID: Int64, id: UUID) async throws -> ScheduleSummary? {
        let rows = try await self.database.client.query(
            """
            SELECT id, name, state, send_at, push_id, skip_reason, push::text FROM schedules
            WHERE app_id = \(appID) AND id = \(id)
            """,
            logger: self.logger)
        for try await row in rows.decode((UUID, String?, ScheduleState, Date, UUID?, String?, String).self) {
            return Self.summary(row)
        }
        return nil
    }

    public func replace(appID: Int64, id: UUID, _ request: ScheduleRequest, now: Date) async throws -> ScheduleSummary?
    {
        let sendAt = try request.time.resolve(now: now, path: request.timePath())
        try request.push.checkTimestamp(sentAt: sendAt, prefix: "push.")
        let push = try Self.json(request.push)
        let changed = try await self.database.transaction { connection -> Bool in
            guard let state = try await Self.lockedState(appID: appID, id: id, on: connection, logger: self.logger)
            else {
                return false
            }
            guard state == .pending else { throw ScheduleError.notPending(state: state) }
            try await connection.query(
                """
                UPDATE schedules SET name = \(request.name), push = \(push)::jsonb, send_at = \(sendAt), updated_at = now()
                WHERE id = \(id)
                """,
                logger: self.logger)
            try await connection.query(
                """
                UPDATE jobs SET run_at = \(sendAt), updated_at = now()
                WHERE dedupe_key = \(ScheduleFireJob.dedupeKey(id)) AND state = 'queued'
                """,
                logger: self.logger)
            return true
        }
        return changed ? try await self.get(appID: appID, id: id) : nil
    }

    public func delete(appID: Int64, id: UUID) async throws -> Bool {
        try await self.database.transaction { connection in
            guard let state = try await Self.lockedState(appID: appID, id: id, on: connection, logger: self.logger)
            else {
                return false
            }
            guard state == .pending || state == .canceled else { throw ScheduleError.notPending(state: state) }
            try await connection.query(
                "UPDATE schedules SET state = 'canceled', updated_at = now() WHERE id = \(id)", logger: self.logger)
            try await connection.query(
                "DELETE FROM jobs WHERE dedupe_key = \(ScheduleFireJob.dedupeKey(id)) AND state = 'queued'",
                logger: self.logger)
            return true
        }
    }

    static func lockedState(appID: Int64, id: UUID, on connection: DatabaseConnection, logger: Logger) async throws
        -> ScheduleState?
    {
        let rows = try await connection.query(
            "SELECT state FROM schedules WHERE id = \(id) AND app_id = \(appID) FOR UPDATE", logger: logger)
        for try await state in rows.decode(ScheduleState.self) { return state }
        return nil
    }

    public func launch(appID: Int64, channelID: UUID, systemActivityID: String, idempotencyKey: String?) async throws
        -> LaunchAttribution
    {
        guard idempotencyKey != nil else {
            return try await self.recordLaunch(
                appID: appID, channelID: channelID, systemActivityID: systemActivityID
            ) {
                try await self.database.client.query($0, logger: self.logger)
            }
        }
        return try await self.database.transaction { connection in
            try await DeviceOperations.once(
                appID: appID, channelID: channelID, route: .launch, key: idempotencyKey, on: connection,
                logger: self.logger
            ) { connection in
                try await self.recordLaunch(appID: appID, channelID: channelID, systemActivityID: systemActivityID) {
                    CollectedRows(try await connection.query($0, logger: self.logger).collect())
                }
            }
        }.answer
    }

    /// One statement: the launch row and its attribution.
    private func recordLaunch(
        appID: Int64, channelID: UUID, systemActivityID: String,
        run: (PostgresQuery) async throws -> CollectedRows<PostgresRow>
    ) async throws -> LaunchAttribution {
        let rows = try await run(
            """
            WITH ch AS (SELECT id FROM channels WHERE id = \(channelID) AND app_id = \(appID)),
            instance AS (
                SELECT \(unescaped: PendingStamps.lastPush(of: "la")) AS last_push_id FROM live_activities la
                WHERE la.channel_id IN (SELECT id FROM ch) AND la.system_activity_id = \(systemActivityID)
                ORDER BY la.id DESC LIMIT 1
            ),
            attribution AS (
                SELECT p.id AS push_id, s.id AS schedule_id, s.name AS schedule_name
                FROM instance i JOIN pushes p ON p.id = i.last_push_id LEFT JOIN schedules s ON s.id = p.schedule_id
            ),
            stored AS (
                INSERT INTO launches (app_id, channel_id, system_activity_id, push_id, schedule_id)
                SELECT \(appID), ch.id, \(systemActivityID), a.push_id, a.schedule_id
                FROM ch LEFT JOIN attribution a ON true
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM ch), a.schedule_id, a.schedule_name, a.push_id
            FROM (SELECT 1) one LEFT JOIN attribution a ON true
            """)
        for try await (channels, scheduleID, name, pushID) in rows.decode((Int64, UUID?, String?, UUID?).self) {
            guard channels == 1 else { throw RegistryError.channelNotFound }
            return LaunchAttribution(scheduleID: scheduleID, scheduleName: name, pushID: pushID)
        }
        throw RegistryError.channelNotFound
    }
}
