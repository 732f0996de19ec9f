import Foundation

extension Audience {
    static let selectorRule = "must have exactly one of tag, ios_channel, named_user, and, or, not (or AND, OR, NOT)"

    /// Decodes the selector at `decoder`, naming bad fields by their JSON path as written (`audience.OR[1].tag[2]`).
    public static func decode(from decoder: any Decoder, depth: Int = 0) throws -> Audience {
        let path = ValidationError.path(decoder.codingPath)
        let at = { (field: String) in path.isEmpty ? field : "\(path).\(field)" }
        guard depth < Self.maxDepth else {
            throw ValidationError(path: path, rule: "nests too deep (at most \(Self.maxDepth) levels)")
        }
        if let single = try? decoder.singleValueContainer(), let word = try? single.decode(String.self) {
            guard word == "all" else { throw ValidationError(path: path, rule: "must be \"all\" or a selector object") }
            return .all
        }
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        var selectors: [(kind: Keys, key: AnyCodingKey)] = []
        var groupKey: AnyCodingKey?
        for key in c.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            guard let kind = Keys(airship: key.stringValue) else {
                throw ValidationError(path: at(key.stringValue), rule: ValidationError.unknownFieldRule)
            }
            if kind == .group { groupKey = key } else { selectors.append((kind, key)) }
        }
        guard selectors.count == 1, let (kind, key) = selectors.first else {
            throw ValidationError(path: path, rule: Self.selectorRule)
        }
        if let groupKey, kind != .tag {
            throw ValidationError(path: at(groupKey.stringValue), rule: "is only allowed with tag")
        }
        let field = at(key.stringValue)
        switch kind {
        case .tag:
            let group =
                try groupKey.flatMap { try c.decode(String.self, forKey: $0) } ?? ChannelRegistration.deviceTagGroup
            try TagRules.group(group, path: at("group"))
            let tags = try Self.values(c, key, field: field)
            for (tag, path) in tags { try TagRules.tag(tag, path: path) }
            return Self.anyOf(tags.map { .tag($0.value, group: group) })
        case .namedUser:
            let users = try Self.values(c, key, field: field)
            for (user, path) in users { try FieldRules.text(user, path: path, maxLength: 128) }
            return Self.anyOf(users.map { .namedUser($0.value) })
        case .iosChannel:
            let raw = try Self.values(c, key, field: field, max: Self.maxChannels)
            return .channels(
                try raw.map { id, path throws(ValidationError) in
                    guard let uuid = UUID(uuidString: id) else {
                        throw ValidationError(path: path, rule: "must be a channel id (a UUID)")
                    }
                    return uuid
                })
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
            return kind == .and ? .and(children) : .or(children)
        case .not:
            return .not(try Self.decode(from: try c.superDecoder(forKey: key), depth: depth + 1))
        case .group:
            throw ValidationError(path: field, rule: "is only allowed with tag")
        }
    }

    /// One value, or a list of 1 to `max` values (Airship's implicit OR), each with its path (`tag`, `tag[2]`).
    static func values(
        _ c: KeyedDecodingContainer<AnyCodingKey>, _ key: AnyCodingKey, field: String, max: Int = Self.maxValues
    ) throws -> [(value: String, path: String)] {
        if let one = try? c.decode(String.self, forKey: key) { return [(one, field)] }
        guard var list = try? c.nestedUnkeyedContainer(forKey: key) else {
            throw ValidationError(path: field, rule: "must be a string or a list of strings")
        }
        var values: [(value: String, path: String)] = []
        while !list.isAtEnd {
            guard values.count < max else { throw ValidationError(path: field, rule: "may list at most \(max) values") }
            values.append((try list.decode(String.self), "\(field)[\(values.count)]"))
        }
        guard !values.isEmpty else { throw ValidationError(path: field, rule: "must list at least one value") }
        return values
    }

    /// Any of `selectors`: the selector itself when there is one.
    static func anyOf(_ selectors: [Audience]) -> Audience {
        selectors.count == 1 ? selectors[0] : .or(selectors)
    }
}
