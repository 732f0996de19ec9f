/// A keyed container of the walk: `decode` records a required property, `decodeIfPresent` an optional one (and
/// answers nil); each property's type is walked for its schema.
struct SchemaKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: SchemaDecoder

    var codingPath: [any CodingKey] { self.decoder.codingPath }

    var allKeys: [Key] {
        self.decoder.branches(self.decoder.path, on: "the payload's keys (allKeys)")
        return []
    }

    func contains(_ key: Key) -> Bool {
        self.decoder.branches(self.decoder.path + [key.stringValue], on: "whether a key is present (contains)")
        return false
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        self.decoder.branches(self.decoder.path + [key.stringValue], on: "whether a value is null (decodeNil)")
        return false
    }

    private func required<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try self.decoder.property(type, key.stringValue, required: true)
    }

    /// Walked for its schema all the same; nil spares making a value.
    private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        _ = try self.decoder.property(type, key.stringValue, required: false)
        return nil
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try self.required(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try self.required(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try self.required(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try self.required(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try self.required(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try self.required(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try self.required(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try self.required(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try self.required(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try self.required(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try self.required(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try self.required(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try self.required(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try self.required(type, key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try self.optional(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try self.optional(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try self.optional(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try self.optional(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try self.optional(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try self.optional(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try self.optional(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try self.optional(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try self.optional(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try self.optional(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try self.optional(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try self.optional(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try self.optional(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try self.optional(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try self.required(type, key) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try self.optional(type, key) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try self.decoder.childProperty(key.stringValue).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try self.decoder.childProperty(key.stringValue).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { try self.decoder.superDecoder("super") }
    func superDecoder(forKey key: Key) throws -> any Decoder { try self.decoder.superDecoder(key.stringValue) }
}
