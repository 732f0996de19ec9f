import Foundation

/// `PUT /api/channels/{id}/push-to-start/{attributes_type}`: `{"token": "<hex>"}`.
public struct PushToStartRegistration: Sendable, Equatable, Decodable {
    public var token: String

    enum CodingKeys: String, CodingKey, CaseIterable { case token }

    public init(token: String) { self.token = token }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.token = try RegistryRules.token(c.decode(String.self, forKey: .token), path: "token")
    }
}

/// `PUT /api/channels/{id}/live-activities/{name}`: the instance iOS started under `name`.
public struct ActivityTracking: Sendable, Equatable, Decodable {
    public var attributesType: String
    public var token: String
    public var systemActivityID: String
    /// Epoch seconds: the gateway ends the activity then (one end push), unless it ended before.
    public var endAt: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case attributesType = "attributes_type"
        case token
        case systemActivityID = "system_activity_id"
        case endAt = "end_at"
    }

    public init(attributesType: String, token: String, systemActivityID: String, endAt: Int64? = nil) {
        self.attributesType = attributesType
        self.token = token
        self.systemActivityID = systemActivityID
        self.endAt = endAt
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.attributesType = try c.decode(String.self, forKey: .attributesType)
        try RegistryRules.attributesType(self.attributesType, path: "attributes_type")
        self.token = try RegistryRules.token(c.decode(String.self, forKey: .token), path: "token")
        self.systemActivityID = try c.decode(String.self, forKey: .systemActivityID)
        try RegistryRules.systemActivityID(self.systemActivityID, path: "system_activity_id")
        self.endAt = try c.decodeIfPresent(Int64.self, forKey: .endAt)
        if let endAt = self.endAt {
            guard endAt <= LiveActivityNotification.latestSeconds else {
                throw ValidationError(path: "end_at", rule: "must be epoch seconds; this looks like milliseconds")
            }
            guard TimeInterval(endAt) >= Date().timeIntervalSince1970 - ScheduleTime.pastTolerance else {
                throw ValidationError(path: "end_at", rule: "is in the past")
            }
        }
    }
}

/// `POST /api/channels/{id}/live-activities/reconcile`: the activities the app still has.
public struct ActivityReconciliation: Sendable, Equatable, Decodable {
    public var systemActivityIDs: [String]

    enum CodingKeys: String, CodingKey, CaseIterable { case systemActivityIDs = "system_activity_ids" }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.systemActivityIDs = try c.decode([String].self, forKey: .systemActivityIDs)
        guard self.systemActivityIDs.count <= 1000 else {
            throw ValidationError(path: "system_activity_ids", rule: "must list at most 1000 ids")
        }
        for (index, id) in self.systemActivityIDs.enumerated() {
            try RegistryRules.systemActivityID(id, path: "system_activity_ids[\(index)]")
        }
    }
}

/// `POST /api/channels/tags` (server API): tag changes for one or many channels, by group.
public struct TagChange: Sendable, Equatable, Decodable {
    public enum Operation: Sendable, Equatable {
        /// Groups named are replaced by exactly these tags.
        case set([String: [String]])
        /// Tags added and removed, by group.
        case modify(add: [String: [String]], remove: [String: [String]])
    }

    public var channelIDs: [UUID]
    public var operation: Operation

    enum CodingKeys: String, CodingKey, CaseIterable { case audience, add, remove, set }
    enum AudienceKeys: String, CodingKey, CaseIterable { case iosChannel = "ios_channel" }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let audienceDecoder = try c.superDecoder(forKey: .audience)
        try audienceDecoder.rejectUnknownKeys(AudienceKeys.self)
        let audience = try audienceDecoder.container(keyedBy: AudienceKeys.self)
        let raw: [String]
        if let one = try? audience.decode(String.self, forKey: .iosChannel) {
            raw = [one]
        } else {
            raw = try audience.decode([String].self, forKey: .iosChannel)
        }
        guard (1...1000).contains(raw.count) else {
            throw ValidationError(path: "audience.ios_channel", rule: "must name 1 to 1000 channels")
        }
        self.channelIDs = try raw.enumerated().map { index, id throws(ValidationError) in
            guard let uuid = UUID(uuidString: id) else {
                throw ValidationError(path: "audience.ios_channel[\(index)]", rule: "must be a channel id (a UUID)")
            }
            return uuid
        }
        let set = try c.decodeIfPresent([String: [String]].self, forKey: .set)
        let add = try c.decodeIfPresent([String: [String]].self, forKey: .add)
        let remove = try c.decodeIfPresent([String: [String]].self, forKey: .remove)
        if let set {
            guard add == nil, remove == nil else {
                throw ValidationError(path: "set", rule: "may not be combined with add or remove")
            }
            try Self.validate(set, field: "set")
            self.operation = .set(set)
        } else {
            guard add != nil || remove != nil else {
                throw ValidationError(path: "add", rule: "is required: give add, remove or set")
            }
            try Self.validate(add ?? [:], field: "add")
            try Self.validate(remove ?? [:], field: "remove")
            self.operation = .modify(add: add ?? [:], remove: remove ?? [:])
        }
    }

    static func validate(_ groups: [String: [String]], field: String) throws(ValidationError) {
        for (group, tags) in groups {
            try TagRules.group(group, path: "\(field).\(group)")
            for (index, tag) in tags.enumerated() { try TagRules.tag(tag, path: "\(field).\(group)[\(index)]") }
        }
    }
}
