import Foundation

/// Who a push is for, as Airship's audience selectors say it. Pure: the Postgres store compiles it to SQL.
public indirect enum Audience: Sendable, Equatable {
    case all
    /// A tag in a group (`device` when no group is given: the tags a device sets itself).
    case tag(String, group: String)
    case channels([UUID])
    case namedUser(String)
    case and([Audience])
    case or([Audience])
    case not(Audience)

    public static let maxDepth = 8
    public static let maxChannels = 1000
    public static let maxSelectors = 100

    enum Keys: String, CodingKey, CaseIterable {
        case tag, group
        case iosChannel = "ios_channel"
        case namedUser = "named_user"
        case and, or, not
    }

    /// Decodes the selector at `decoder`, naming bad fields by their JSON path.
    public static func decode(from decoder: any Decoder, depth: Int = 0) throws -> Audience {
        let path = ValidationError.path(decoder.codingPath)
        guard depth < Self.maxDepth else {
            throw ValidationError(path: path, rule: "nests too deep (at most \(Self.maxDepth) levels)")
        }
        if let single = try? decoder.singleValueContainer(), let word = try? single.decode(String.self) {
            guard word == "all" else { throw ValidationError(path: path, rule: "must be \"all\" or a selector object") }
            return .all
        }
        try decoder.rejectUnknownKeys(Keys.self)
        let c = try decoder.container(keyedBy: Keys.self)
        let keys = Set(c.allKeys.map(\.stringValue))
        let selector = keys.subtracting(["group"])
        guard selector.count == 1, let key = selector.first.flatMap(Keys.init(stringValue:)) else {
            throw ValidationError(
                path: path, rule: "must have exactly one of tag, ios_channel, named_user, and, or, not")
        }
        if keys.contains("group") && key != .tag {
            throw ValidationError(path: path.isEmpty ? "group" : "\(path).group", rule: "is only allowed with tag")
        }
        let field = path.isEmpty ? key.stringValue : "\(path).\(key.stringValue)"
        switch key {
        case .tag:
            let tag = try c.decode(String.self, forKey: .tag)
            try TagRules.tag(tag, path: field)
            let group = try c.decodeIfPresent(String.self, forKey: .group) ?? ChannelRegistration.deviceTagGroup
            try TagRules.group(group, path: path.isEmpty ? "group" : "\(path).group")
            return .tag(tag, group: group)
        case .iosChannel:
            let raw: [String]
            if let one = try? c.decode(String.self, forKey: .iosChannel) {
                raw = [one]
            } else {
                raw = try c.decode([String].self, forKey: .iosChannel)
            }
            guard (1...Self.maxChannels).contains(raw.count) else {
                throw ValidationError(path: field, rule: "must name 1 to \(Self.maxChannels) channels")
            }
            return .channels(
                try raw.enumerated().map { index, id throws(ValidationError) in
                    guard let uuid = UUID(uuidString: id) else {
                        throw ValidationError(path: "\(field)[\(index)]", rule: "must be a channel id (a UUID)")
                    }
                    return uuid
                })
        case .namedUser:
            let user = try c.decode(String.self, forKey: .namedUser)
            try FieldRules.text(user, path: field, maxLength: 128)
            return .namedUser(user)
        case .and, .or:
            var list = try c.nestedUnkeyedContainer(forKey: key)
            var children: [Audience] = []
            while !list.isAtEnd {
                guard children.count < Self.maxSelectors else {
                    throw ValidationError(path: field, rule: "may list at most \(Self.maxSelectors) selectors")
                }
                children.append(try Self.decode(from: try list.superDecoder(), depth: depth + 1))
            }
            guard !children.isEmpty else { throw ValidationError(path: field, rule: "must list at least one selector") }
            return key == .and ? .and(children) : .or(children)
        case .not:
            return .not(try Self.decode(from: try c.superDecoder(forKey: .not), depth: depth + 1))
        case .group:
            throw ValidationError(path: field, rule: "is only allowed with tag")
        }
    }
}

extension Audience: Encodable {
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .all:
            var c = encoder.singleValueContainer()
            try c.encode("all")
        case .tag(let tag, let group):
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(tag, forKey: .tag)
            try c.encode(group, forKey: .group)
        case .channels(let ids):
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(ids.map { $0.uuidString.lowercased() }, forKey: .iosChannel)
        case .namedUser(let user):
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(user, forKey: .namedUser)
        case .and(let list):
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(list, forKey: .and)
        case .or(let list):
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(list, forKey: .or)
        case .not(let inner):
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(inner, forKey: .not)
        }
    }
}

extension Audience: Decodable {
    public init(from decoder: any Decoder) throws {
        self = try Self.decode(from: decoder)
    }
}
