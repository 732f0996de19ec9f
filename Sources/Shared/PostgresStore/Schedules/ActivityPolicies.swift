import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

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
            self.attributesType = try ActivityPolicies.attributesType(c, .attributesType, base: base)
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
    public var updateBudget: [UpdateBudget]
    public var renew: [Renew]
    /// A broadcast channel with no push and no tracked instance for this long is deleted (default 24 h).
    public var broadcastIdleSeconds: Int?
    /// The channel reconcile deletes at Apple the channels only Apple knows (default false: other systems may share
    /// the bundle id).
    public var broadcastDeleteUnknown: Bool?
    /// How long after APNs accepted a start the channel may register it and count as `started` (default 600 s).
    public var startConfirmSeconds: Int?
    /// Starts per channel per hour; beyond, held as `start_budget` (default 8).
    public var startsPerChannelPerHour: Int?
    /// A push-to-start token is suspect after this many accepted starts none of which started (default 3).
    public var suspectAfterStarts: Int?
    /// Whether starts skip suspect tokens (default true).
    public var skipSuspectTokens: Bool?
    /// Tag groups the app secret may replace on a channel (default `["device"]`).
    public var deviceTagGroups: [String]?
    /// Whether the app secret may set a channel's named user (default false).
    public var deviceNamedUser: Bool?
    /// Request rates and quotas (`ActivityPolicies+Limits.swift`).
    public var limits: Limits

    enum CodingKeys: String, CodingKey, CaseIterable {
        case activityMaxAgeSeconds = "activity_max_age_seconds"
        case retentionSeconds = "retention_seconds"
        case idleEnd = "idle_end"
        case updateBudget = "update_budget"
        case renew
        case broadcastIdleSeconds = "broadcast_idle_seconds"
        case broadcastDeleteUnknown = "broadcast_delete_unknown"
        case startConfirmSeconds = "start_confirm_seconds"
        case startsPerChannelPerHour = "starts_per_channel_per_hour"
        case suspectAfterStarts = "suspect_after_starts"
        case skipSuspectTokens = "skip_suspect_tokens"
        case deviceTagGroups = "device_tag_groups"
        case deviceNamedUser = "device_named_user"
        case limits
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
        self.updateBudget = try c.decodeIfPresent([UpdateBudget].self, forKey: .updateBudget) ?? []
        let budgeted = self.updateBudget.map { $0.attributesType ?? "" }
        guard Set(budgeted).count == budgeted.count else {
            throw ValidationError(
                path: "update_budget", rule: "names each attributes type (and the default) at most once")
        }
        self.renew = try c.decodeIfPresent([Renew].self, forKey: .renew) ?? []
        let renewed = self.renew.map { $0.attributesType ?? "" }
        guard Set(renewed).count == renewed.count else {
            throw ValidationError(path: "renew", rule: "names each attributes type (and the default) at most once")
        }
        self.broadcastIdleSeconds = try c.decodeIfPresent(Int.self, forKey: .broadcastIdleSeconds)
        if let idle = self.broadcastIdleSeconds, !(60...2_592_000).contains(idle) {
            throw ValidationError(path: "broadcast_idle_seconds", rule: "must be 60 to 2592000 (30 days)")
        }
        self.broadcastDeleteUnknown = try c.decodeIfPresent(Bool.self, forKey: .broadcastDeleteUnknown)
        self.startConfirmSeconds = try c.decodeIfPresent(Int.self, forKey: .startConfirmSeconds)
        if let window = self.startConfirmSeconds, !(1...86_400).contains(window) {
            throw ValidationError(path: "start_confirm_seconds", rule: "must be 1 to 86400")
        }
        self.startsPerChannelPerHour = try c.decodeIfPresent(Int.self, forKey: .startsPerChannelPerHour)
        if let budget = self.startsPerChannelPerHour, !(1...1000).contains(budget) {
            throw ValidationError(path: "starts_per_channel_per_hour", rule: "must be 1 to 1000")
        }
        self.suspectAfterStarts = try c.decodeIfPresent(Int.self, forKey: .suspectAfterStarts)
        if let k = self.suspectAfterStarts, !(1...100).contains(k) {
            throw ValidationError(path: "suspect_after_starts", rule: "must be 1 to 100")
        }
        self.skipSuspectTokens = try c.decodeIfPresent(Bool.self, forKey: .skipSuspectTokens)
        self.deviceTagGroups = try c.decodeIfPresent([String].self, forKey: .deviceTagGroups)
        for (index, group) in (self.deviceTagGroups ?? []).enumerated() {
            try TagRules.group(group, path: "device_tag_groups[\(index)]")
        }
        if let groups = self.deviceTagGroups, groups.count > 100 {
            throw ValidationError(path: "device_tag_groups", rule: "must name at most 100 groups")
        }
        self.deviceNamedUser = try c.decodeIfPresent(Bool.self, forKey: .deviceNamedUser)
        self.limits = try c.decodeIfPresent(Limits.self, forKey: .limits) ?? Limits()
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
                    broadcast_idle_after = coalesce(
                        make_interval(secs => \(self.broadcastIdleSeconds)), broadcast_idle_after),
                    broadcast_delete_unknown = coalesce(\(self.broadcastDeleteUnknown), broadcast_delete_unknown),
                    start_confirm_window = coalesce(
                        make_interval(secs => \(self.startConfirmSeconds)), start_confirm_window),
                    starts_per_channel_per_hour = coalesce(
                        \(self.startsPerChannelPerHour.map(Int32.init)), starts_per_channel_per_hour),
                    suspect_after_starts = coalesce(\(self.suspectAfterStarts.map(Int32.init)), suspect_after_starts),
                    skip_suspect_tokens = coalesce(\(self.skipSuspectTokens), skip_suspect_tokens),
                    device_tag_groups = coalesce(\(self.deviceTagGroups)::text[], device_tag_groups),
                    device_named_user = coalesce(\(self.deviceNamedUser), device_named_user),
                    server_requests_per_second = coalesce(
                        \(self.limits.value(.serverRequestsPerSecond)), server_requests_per_second),
                    device_requests_per_second = coalesce(
                        \(self.limits.value(.deviceRequestsPerSecond)), device_requests_per_second),
                    max_pending_updates_per_activity = coalesce(
                        \(self.limits.value(.maxPendingUpdatesPerActivity)), max_pending_updates_per_activity),
                    max_pending_updates = coalesce(\(self.limits.value(.maxPendingUpdates)), max_pending_updates),
                    max_schedules = coalesce(\(self.limits.value(.maxSchedules)), max_schedules),
                    max_tags_per_channel = coalesce(\(self.limits.value(.maxTagsPerChannel)), max_tags_per_channel),
                    updated_at = now()
                WHERE app_key = \(appKey) RETURNING id
                """,
                logger: database.logger)
            var appID: Int64?
            for try await id in rows.decode(Int64.self) { appID = id }
            guard let appID else { return false }
            try await connection.query("DELETE FROM activity_policies WHERE app_id = \(appID)", logger: database.logger)
            try await connection.query("DELETE FROM update_budgets WHERE app_id = \(appID)", logger: database.logger)
            try await connection.query("DELETE FROM renew_policies WHERE app_id = \(appID)", logger: database.logger)
            if !self.renew.isEmpty {
                try await connection.query(
                    """
                    INSERT INTO renew_policies (app_id, attributes_type, after_seconds, alert_title, alert_body)
                    SELECT \(appID), t, n, at, ab
                    FROM unnest(\(self.renew.map { $0.attributesType ?? "" })::text[],
                                \(self.renew.map { Int32($0.afterSeconds) })::int4[],
                                \(self.renew.map { $0.alert.title ?? "" })::text[],
                                \(self.renew.map { $0.alert.body ?? "" })::text[]) AS x(t, n, at, ab)
                    """,
                    logger: database.logger)
            }
            if !self.updateBudget.isEmpty {
                try await connection.query(
                    """
                    INSERT INTO update_budgets (app_id, attributes_type, priority_10_per_hour)
                    SELECT \(appID), t, n
                    FROM unnest(\(self.updateBudget.map { $0.attributesType ?? "" })::text[],
                                \(self.updateBudget.map { Int32($0.priority10PerHour) })::int4[]) AS x(t, n)
                    """,
                    logger: database.logger)
            }
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

extension ActivityPolicies {
    /// The optional `attributes_type` of a per-type entry (the app's default without one), under the registry's rule.
    static func attributesType<Key: CodingKey>(_ c: KeyedDecodingContainer<Key>, _ key: Key, base: String)
        throws -> String?
    {
        guard let type = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
        try RegistryRules.attributesType(type, path: "\(base).attributes_type")
        return type
    }
}
