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
    /// What the door does with contracts (docs/contracts.md; default `enforce`).
    public var contractPolicy: ContractPolicy?

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
        case contractPolicy = "contract_policy"
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
        if let raw = try c.decodeIfPresent(String.self, forKey: .contractPolicy) {
            guard let policy = ContractPolicy(rawValue: raw) else {
                throw ValidationError(path: "contract_policy", rule: "must be off, dry_run, enforce or required")
            }
            self.contractPolicy = policy
        }
        let types = self.idleEnd.map { $0.attributesType ?? "" }
        guard Set(types).count == types.count else {
            throw ValidationError(path: "idle_end", rule: "names each attributes type (and the default) at most once")
        }
    }

    /// Replaces the policies of the app with this key; false when there is no such app.
    public func apply(appKey: String, database: Database) async throws -> Bool {
        try await database.transaction { connection in
            var bindings = PostgresBindings(capacity: 18)
            bindings.append(self.activityMaxAgeSeconds)
            bindings.append(self.retentionSeconds)
            bindings.append(self.broadcastIdleSeconds)
            bindings.append(self.broadcastDeleteUnknown)
            bindings.append(self.startConfirmSeconds)
            bindings.append(self.startsPerChannelPerHour.map(Int32.init))
            bindings.append(self.suspectAfterStarts.map(Int32.init))
            bindings.append(self.skipSuspectTokens)
            bindings.append(self.deviceTagGroups)
            bindings.append(self.deviceNamedUser)
            bindings.append(self.limits.value(.serverRequestsPerSecond))
            bindings.append(self.limits.value(.deviceRequestsPerSecond))
            bindings.append(self.limits.value(.maxPendingUpdatesPerActivity))
            bindings.append(self.limits.value(.maxPendingUpdates))
            bindings.append(self.limits.value(.maxSchedules))
            bindings.append(self.limits.value(.maxTagsPerChannel))
            bindings.append(appKey)
            bindings.append(self.contractPolicy?.rawValue)
            let rows = try await connection.query(PolicyStatements.UpdateApp.bound(bindings), logger: database.logger)
            var appID: Int64?
            for try await id in rows.decode(Int64.self) { appID = id }
            guard let appID else { return false }
            try await connection.query(PolicyStatements.DeleteIdlePolicies.query(appID), logger: database.logger)
            try await connection.query(PolicyStatements.DeleteUpdateBudgets.query(appID), logger: database.logger)
            try await connection.query(PolicyStatements.DeleteRenewPolicies.query(appID), logger: database.logger)
            if !self.renew.isEmpty {
                try await connection.query(
                    PolicyStatements.InsertRenewPolicies.query(
                        appID, self.renew.map { $0.attributesType ?? "" }, self.renew.map { Int32($0.afterSeconds) },
                        self.renew.map { $0.alert.title ?? "" }, self.renew.map { $0.alert.body ?? "" }),
                    logger: database.logger)
            }
            if !self.updateBudget.isEmpty {
                try await connection.query(
                    PolicyStatements.InsertUpdateBudgets.query(
                        appID, self.updateBudget.map { $0.attributesType ?? "" },
                        self.updateBudget.map { Int32($0.priority10PerHour) }),
                    logger: database.logger)
            }
            if !self.idleEnd.isEmpty {
                try await connection.query(
                    PolicyStatements.InsertIdlePolicies.query(
                        appID, self.idleEnd.map { $0.attributesType ?? "" }, self.idleEnd.map { Int32($0.idleSeconds) },
                        self.idleEnd.map { Int32($0.dismissalSeconds ?? 0) }),
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
