/// An unkeyed container of the walk: an array of one element (`isAtEnd` after it), whose type is walked for the
/// array's `items`; `decodeIfPresent` makes the element nullable (`[Int?]`).
struct SchemaUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: SchemaDecoder
    private(set) var currentIndex = 0

    init(decoder: SchemaDecoder) { self.decoder = decoder }

    var codingPath: [any CodingKey] { self.decoder.codingPath }
    var count: Int? { 1 }
    var isAtEnd: Bool { self.currentIndex >= 1 }

    mutating func decodeNil() throws -> Bool {
        self.decoder.branches(self.decoder.path + ["[]"], on: "whether an element is null (decodeNil)")
        return false
    }

    private mutating func next<T: Decodable>(_ type: T.Type, nullable: Bool) throws -> T {
        self.currentIndex += 1
        return try self.decoder.item(type, nullable: nullable)
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try self.next(type, nullable: false) }
    mutating func decode(_ type: String.Type) throws -> String { try self.next(type, nullable: false) }
    mutating func decode(_ type: Double.Type) throws -> Double { try self.next(type, nullable: false) }
    mutating func decode(_ type: Float.Type) throws -> Float { try self.next(type, nullable: false) }
    mutating func decode(_ type: Int.Type) throws -> Int { try self.next(type, nullable: false) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try self.next(type, nullable: false) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try self.next(type, nullable: false) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try self.next(type, nullable: false) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try self.next(type, nullable: false) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try self.next(type, nullable: false) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try self.next(type, nullable: false) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try self.next(type, nullable: false) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try self.next(type, nullable: false) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try self.next(type, nullable: false) }
    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? {
        _ = try self.next(type, nullable: true)
        return nil
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try self.next(type, nullable: false) }
    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        _ = try self.next(type, nullable: true)
        return nil
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        self.currentIndex += 1
        return try self.decoder.childItem().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        self.currentIndex += 1
        return try self.decoder.childItem().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        self.currentIndex += 1
        return self.decoder.childItem()
    }
}
