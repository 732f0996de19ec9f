import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// Per-app lifecycle policies: an activity that had no update for `idle_end_seconds` gets one end push (dismissed
/// `dismissal_seconds` later), as Sightscreen's stale detection does but from the server. A recurring job
/// (`maintenance.idle_end`) looks for idle activities; each gets exactly one end push, recorded on the instance
/// (`end_push_id`) in the transaction that creates it.
public struct IdleActivityEnder: JobHandler {
    public static let kind = JobKind.idleEnd

    let database: Database
    let interval: Duration
    let limit: Int

    public init(database: Database, interval: Duration = .seconds(10), limit: Int = 1000) {
        self.database = database
        self.interval = interval
        self.limit = limit
    }

    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        // An instance reached by a push sent in batches may have its stamp (`last_update_at`) still pending.
        try await DeliveryLedger(database: self.database).foldStampsOfAppsWithIdleEnd()
        var ended = 0
        repeat {
            let count = try await self.endIdle(now: Date())
            ended += count
            if count < self.limit { break }
        } while true
        if ended > 0 { logger.debug("idle activities ended", metadata: ["count": "\(ended)"]) }
        try await Recurring.scheduleNext(kind: Self.kind, every: self.interval, after: Date(), database: self.database)
    }

    /// One pass: up to `limit` idle activities get their end push. Returns how many.
    public func endIdle(now: Date) async throws -> Int {
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT la.id, la.app_id, la.channel_id, la.name,
                       coalesce(pt.dismissal_seconds, pd.dismissal_seconds, 0)
                FROM live_activities la
                JOIN apps a ON a.id = la.app_id
                LEFT JOIN activity_policies pt ON pt.app_id = la.app_id AND pt.attributes_type = la.attributes_type
                LEFT JOIN activity_policies pd ON pd.app_id = la.app_id AND pd.attributes_type = ''
                WHERE la.app_id IN (SELECT app_id FROM activity_policies WHERE idle_end_seconds IS NOT NULL)
                  AND la.state = 'active' AND la.end_push_id IS NULL
                  AND la.environment = a.apns_environment AND la.started_at > now() - a.activity_max_age
                  AND coalesce(pt.idle_end_seconds, pd.idle_end_seconds) IS NOT NULL
                  AND coalesce(la.last_update_at, la.started_at)
                      < now() - make_interval(secs => coalesce(pt.idle_end_seconds, pd.idle_end_seconds))
                ORDER BY la.id
                LIMIT \(self.limit)
                FOR UPDATE OF la SKIP LOCKED
                """,
                logger: logger)
            var idle: [(id: Int64, appID: Int64, channel: UUID, name: String, dismissal: Int32)] = []
            for try await row in rows.decode((Int64, Int64, UUID, String, Int32).self) {
                idle.append((row.0, row.1, row.2, row.3, row.4))
            }
            let timestamp = Int64(now.timeIntervalSince1970)
            for (appID, group) in Dictionary(grouping: idle, by: \.appID) {
                let pushes = group.map { activity in
                    PushRequest(
                        audience: .channels([activity.channel]),
                        liveActivity: LiveActivityNotification(
                            event: .end, name: activity.name, dismissalDate: timestamp + Int64(activity.dismissal)),
                        campaignCategories: ["idle_end"])
                }
                let accepted = PushAccepted(operationID: UUID(), pushIDs: pushes.map { _ in UUID() })
                try await PostgresPushStore.insert(
                    try PostgresPushStore.rows(pushes, timestamp: timestamp), accepted: accepted, appID: appID,
                    on: connection, logger: logger)
                try await connection.query(
                    """
                    UPDATE live_activities l SET end_push_id = x.push_id
                    FROM unnest(\(group.map(\.id))::int8[], \(accepted.pushIDs)::uuid[]) AS x(id, push_id)
                    WHERE l.id = x.id
                    """,
                    logger: logger)
            }
            return idle.count
        }
    }
}

/// Recurring maintenance: each run is a job whose dedupe key names its time slot; a run queues the next slot, and
/// a worker starting up queues the current one, so any number of workers keep exactly one run per slot queued.
public enum Recurring {
    public static func scheduleNext(kind: JobKind, every interval: Duration, after date: Date, database: Database)
        async throws
    {
        let milliseconds = max(1, Int(interval.seconds * 1000))
        let slot = Int(date.timeIntervalSince1970 * 1000) / milliseconds + 1
        _ = try await PostgresJobQueue(database: database).enqueue([
            JobRequest(
                kind: kind, appID: 0, runAt: Date(timeIntervalSince1970: TimeInterval(slot * milliseconds) / 1000),
                priority: -1, maxAttempts: 3, dedupeKey: "\(kind)@\(slot)")
        ])
    }
}

/// `PUT /admin/apps/{key}/policies`: the app's lifecycle policies, replaced as a whole.
public struct ActivityPolicies: Sendable, Equatable, Codable {
    public struct IdleEnd: Sendable, Equatable, Codable {
        public var attributesType: String?
        public var idleSeconds: Int
        public var dismissalSeconds: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case attributesType = "attributes_type"
            case idleSeconds = "idle_seconds"
            case dismissalSeconds = "dismissal_seconds"
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let base = ValidationError.path(decoder.codingPath)
            self.attributesType = try c.decodeIfPresent(String.self, forKey: .attributesType)
            if let type = self.attributesType {
                try RegistryRules.attributesType(type, path: "\(base).attributes_type")
            }
            self.idleSeconds = try c.decode(Int.self, forKey: .idleSeconds)
            guard (60...86_400).contains(self.idleSeconds) else {
                throw ValidationError(path: "\(base).idle_seconds", rule: "must be 60 to 86400")
            }
            self.dismissalSeconds = try c.decodeIfPresent(Int.self, forKey: .dismissalSeconds)
            if let d = self.dismissalSeconds, !(0...14_400).contains(d) {
                throw ValidationError(path: "\(base).dismissal_seconds", rule: "must be 0 to 14400")
            }
        }
    }

    public var activityMaxAgeSeconds: Int?
    public var retentionSeconds: Int?
    public var idleEnd: [IdleEnd]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case activityMaxAgeSeconds = "activity_max_age_seconds"
        case retentionSeconds = "retention_seconds"
        case idleEnd = "idle_end"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.activityMaxAgeSeconds = try c.decodeIfPresent(Int.self, forKey: .activityMaxAgeSeconds)
        if let age = self.activityMaxAgeSeconds, !(60...43_200).contains(age) {
            throw ValidationError(path: "activity_max_age_seconds", rule: "must be 60 to 43200 (12 hours)")
        }
        self.retentionSeconds = try c.decodeIfPresent(Int.self, forKey: .retentionSeconds)
        if let retention = self.retentionSeconds, retention < 0 {
            throw ValidationError(path: "retention_seconds", rule: "must not be negative")
        }
        self.idleEnd = try c.decodeIfPresent([IdleEnd].self, forKey: .idleEnd) ?? []
        let types = self.idleEnd.map { $0.attributesType ?? "" }
        guard Set(types).count == types.count else {
            throw ValidationError(path: "idle_end", rule: "names each attributes type (and the default) at most once")
        }
    }

    /// Replaces the policies of the app with this key; false when there is no such app.
    public func apply(appKey: String, database: Database) async throws -> Bool {
        try await database.transaction { connection in
            let rows = try await connection.query(
                """
                UPDATE apps SET
                    activity_max_age = coalesce(make_interval(secs => \(self.activityMaxAgeSeconds)), activity_max_age),
                    registry_retention = coalesce(make_interval(secs => \(self.retentionSeconds)), registry_retention),
                    updated_at = now()
                WHERE app_key = \(appKey) RETURNING id
                """,
                logger: database.logger)
            var appID: Int64?
            for try await id in rows.decode(Int64.self) { appID = id }
            guard let appID else { return false }
            try await connection.query("DELETE FROM activity_policies WHERE app_id = \(appID)", logger: database.logger)
            if !self.idleEnd.isEmpty {
                try await connection.query(
                    """
                    INSERT INTO activity_policies (app_id, attributes_type, idle_end_seconds, dismissal_seconds)
                    SELECT \(appID), t, i, d
                    FROM unnest(\(self.idleEnd.map { $0.attributesType ?? "" })::text[],
                                \(self.idleEnd.map { Int32($0.idleSeconds) })::int4[],
                                \(self.idleEnd.map { Int32($0.dismissalSeconds ?? 0) })::int4[]) AS x(t, i, d)
                    """,
                    logger: database.logger)
            }
            return true
        }
    }
}
