/// The decoder of one value in a schema walk: records what the type's `init(from:)` asks for (a keyed container is an
/// object, `decode` a required property and `decodeIfPresent` an optional one; an unkeyed container an array; a single
/// value a scalar) and answers with stand-in values.
final class SchemaDecoder: Decoder {
    private enum Shape: Equatable { case none, object, array, single }

    let recorder: SchemaRecorder
    let path: [String]
    private var shape = Shape.none
    private var properties: [String: ContractSchema] = [:]
    private var childProperties: [String: SchemaDecoder] = [:]
    private var required: Set<String> = []
    private var items: [ContractSchema] = []
    private var childItems: [SchemaDecoder] = []
    private var single: ContractSchema?

    init(recorder: SchemaRecorder, path: [String]) {
        self.recorder = recorder
        self.path = path
    }

    var codingPath: [any CodingKey] { SchemaCodingKey.path(self.path) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try self.become(.object)
        return KeyedDecodingContainer(SchemaKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try self.become(.array)
        return SchemaUnkeyedContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try self.become(.single)
        return SchemaSingleValueContainer(decoder: self)
    }

    private func become(_ shape: Shape) throws {
        guard self.shape == .none || self.shape == shape else {
            throw self.recorder.error(
                self.path, "decoded both as \(self.shape) and as \(shape): a contract describes one shape per value")
        }
        self.shape = shape
    }

    // MARK: recording

    func property<T: Decodable>(_ type: T.Type, _ key: String, required: Bool) throws -> T {
        let (schema, value) = try self.recorder.walk(T.self, at: self.path + [key])
        try self.setProperty(key, schema, required: required)
        return value
    }

    func childProperty(_ key: String) throws -> SchemaDecoder {
        let child = SchemaDecoder(recorder: self.recorder, path: self.path + [key])
        guard self.properties[key] == nil, self.childProperties[key] == nil else {
            throw self.recorder.error(child.path, "decoded twice: a contract describes one shape per key")
        }
        self.childProperties[key] = child
        self.required.insert(key)
        return child
    }

    private func setProperty(_ key: String, _ schema: ContractSchema, required: Bool) throws {
        if let earlier = self.properties[key], earlier != schema || self.childProperties[key] != nil {
            throw self.recorder.error(self.path + [key], "decoded twice as different types")
        }
        self.properties[key] = schema
        if required { self.required.insert(key) }
    }

    func item<T: Decodable>(_ type: T.Type, nullable: Bool) throws -> T {
        let (schema, value) = try self.recorder.walk(T.self, at: self.path + ["[]"])
        self.items.append(nullable ? .nullable(schema) : schema)
        return value
    }

    func childItem() -> SchemaDecoder {
        let child = SchemaDecoder(recorder: self.recorder, path: self.path + ["[]"])
        self.childItems.append(child)
        return child
    }

    func value<T: Decodable>(_ type: T.Type) throws -> T {
        let (schema, value) = try self.recorder.walk(T.self, at: self.path)
        if let single, single != schema {
            throw self.recorder.error(self.path, "decoded twice as different types")
        }
        self.single = schema
        return value
    }

    /// What the walk recorded; `type` names the type in errors.
    func schema(of type: Any.Type) throws -> ContractSchema {
        switch self.shape {
        case .none:
            throw self.recorder.error(self.path, "\(type).init(from:) decodes nothing: no contract describes it")
        case .object:
            var properties = self.properties
            for (key, child) in self.childProperties { properties[key] = try child.schema(of: type) }
            return .object(properties: properties, required: self.required.sorted())
        case .array:
            let items = try self.items + self.childItems.map { try $0.schema(of: type) }
            guard let first = items.first else {
                throw self.recorder.error(
                    self.path, "\(type).init(from:) decodes no element of its array: its element type is unknown")
            }
            guard items.allSatisfy({ $0 == first }) else {
                throw self.recorder.error(
                    self.path + ["[]"],
                    "\(type) decodes an array of elements of different types (a tuple): arrays in a contract have "
                        + "one element type; use a struct")
            }
            return .array(items: first)
        case .single:
            guard let single else {
                throw self.recorder.error(self.path, "\(type).init(from:) decodes no value from its single value")
            }
            return single
        }
    }

    // MARK: what a contract cannot describe

    /// `contains`, `allKeys`, `decodeNil`: the type branches on the payload (an enum with associated values, a custom
    /// `init(from:)`).
    func branches(_ path: [String], on what: String) {
        self.recorder.fail(
            path,
            "the type's init(from:) reads \(what), so what it accepts depends on the payload (an enum with associated "
                + "values, or a custom init(from:) that branches); a contract cannot describe it: use a struct with "
                + "optional fields (decodeIfPresent), or a String or Int enum that is CaseIterable")
    }

    func superDecoder(_ key: String) throws -> any Decoder { try self.childProperty(key) }
}
