import Foundation

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
