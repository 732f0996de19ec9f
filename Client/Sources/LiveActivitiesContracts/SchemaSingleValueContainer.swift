/// A single value container of the walk: the value's type is walked for its schema.
struct SchemaSingleValueContainer: SingleValueDecodingContainer {
    let decoder: SchemaDecoder

    var codingPath: [any CodingKey] { self.decoder.codingPath }

    func decodeNil() -> Bool {
        self.decoder.branches(self.decoder.path, on: "whether the value is null (decodeNil)")
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try self.decoder.value(type) }
    func decode(_ type: String.Type) throws -> String { try self.decoder.value(type) }
    func decode(_ type: Double.Type) throws -> Double { try self.decoder.value(type) }
    func decode(_ type: Float.Type) throws -> Float { try self.decoder.value(type) }
    func decode(_ type: Int.Type) throws -> Int { try self.decoder.value(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try self.decoder.value(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try self.decoder.value(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try self.decoder.value(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try self.decoder.value(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try self.decoder.value(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try self.decoder.value(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try self.decoder.value(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try self.decoder.value(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try self.decoder.value(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try self.decoder.value(type) }
}
