import Foundation

/// Who a push is for, as Airship's audience selectors say it. Pure: the Postgres store compiles it to SQL.
///
/// A list of values for an atomic selector (`{"tag": ["a", "b"]}`, `{"named_user": ["x", "y"]}`) is any of them:
/// it decodes to `.or` of one selector each, and such an `.or` encodes as the list again (`Audience+Decoding.swift`).
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
    /// The most values in one atomic selector's list (`{"tag": [...]}`, `{"named_user": [...]}`).
    public static let maxValues = 1000

    enum Keys: String, CodingKey, CaseIterable {
        case tag, group
        case iosChannel = "ios_channel"
        case namedUser = "named_user"
        case and, or, not

        /// A key as Airship accepts it: the compound operators in lower or upper case (`and`/`AND`, `or`/`OR`,
        /// `not`/`NOT`), the atomic selectors in lower case.
        init?(airship name: String) {
            if let key = Keys(rawValue: name) {
                self = key
                return
            }
            switch name {
            case "AND": self = .and
            case "OR": self = .or
            case "NOT": self = .not
            default: return nil
            }
        }
    }

    /// The tags of an `.or` of two or more tags of one group, as a list (nil for any other audience).
    package var tagList: (tags: [String], group: String)? {
        guard case .or(let list) = self, list.count > 1, case .tag(_, let group) = list[0] else { return nil }
        var tags: [String] = []
        for case .tag(let tag, let each) in list where each == group { tags.append(tag) }
        return tags.count == list.count ? (tags, group) : nil
    }

    /// The named users of an `.or` of two or more named users, as a list (nil for any other audience).
    package var namedUserList: [String]? {
        guard case .or(let list) = self, list.count > 1 else { return nil }
        var users: [String] = []
        for case .namedUser(let user) in list { users.append(user) }
        return users.count == list.count ? users : nil
    }
}

extension Audience: Encodable {
    /// The API's form, compound operators in lower case; an `.or` of tags of one group, or of named users, as
    /// Airship's list form (which decodes to the same audience, at the same depth).
    public func encode(to encoder: any Encoder) throws {
        if let (tags, group) = self.tagList {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(tags, forKey: .tag)
            try c.encode(group, forKey: .group)
            return
        }
        if let users = self.namedUserList {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(users, forKey: .namedUser)
            return
        }
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
