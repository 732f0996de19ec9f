import Foundation

/// One walk of a type's `init(from:)` with `SchemaDecoder`: returns each type's schema and a stand-in value for its
/// decoder to return. Types whose `init(from:)` needs a payload (scalars of Foundation, optionals, dictionaries,
/// `CaseIterable` enums) are described by their type before it runs.
///
/// What the walk cannot describe is kept in `failure` (the non-throwing `contains`, `allKeys` and `decodeNil()` cannot
/// throw it) and thrown when the type's `init(from:)` returns.
final class SchemaRecorder {
    /// A bound on nesting, for recursion through types that differ at each level (generics); a type met again inside
    /// itself is refused at once.
    static let maxDepth = 32

    let root: String
    private(set) var failure: ContractError?
    /// The types whose `init(from:)` runs now, outermost first: names the type that contains itself.
    private var walking: [(type: ObjectIdentifier, name: String, path: [String])] = []

    init(root: String) { self.root = root }

    func fail(_ path: [String], _ reason: String) {
        if self.failure == nil { self.failure = ContractError(root: self.root, path: path, reason: reason) }
    }

    func error(_ path: [String], _ reason: String) -> ContractError {
        ContractError(root: self.root, path: path, reason: reason)
    }

    func walk<T: Decodable>(_ type: T.Type, at path: [String]) throws -> (schema: ContractSchema, value: T) {
        if let failure { throw failure }
        guard path.count <= Self.maxDepth else {
            throw self.recursion(at: path, "a type nested deeper than \(Self.maxDepth) levels")
        }
        if let (schema, value) = Self.scalar(T.self) { return (schema, value as! T) }
        if let optional = T.self as? any OptionalMarker.Type {
            var schema = try self.walkAny(optional.wrappedType, at: path)
            if case .nullable(let inner) = schema { schema = inner }
            return (.nullable(schema), optional.absent as! T)
        }
        if let enumeration = T.self as? any (CaseIterable & RawRepresentable).Type {
            let (schema, first) = try self.enumeration(enumeration, at: path)
            return (schema, first as! T)
        }
        if let dictionary = T.self as? any DictionaryMarker.Type {
            guard dictionary.keyType == String.self || dictionary.keyType == Int.self else {
                throw self.error(
                    path,
                    "\(T.self) has keys of type \(dictionary.keyType), which JSONEncoder writes as an array of "
                        + "alternating keys and values; use [String: \(dictionary.valueType)]")
            }
            let values = try self.walkAny(dictionary.valueType, at: path + ["*"])
            return (.dictionary(values: values), dictionary.empty as! T)
        }
        let notCaseIterable = self.error(
            path,
            "\(T.self) is an enum that is not CaseIterable, so its raw values cannot be listed: make \(T.self) "
                + "CaseIterable")
        let walked: (schema: ContractSchema, value: T)
        do {
            walked = try self.decode(T.self, at: path)
        } catch let error as ContractError
            where T.self is any RawRepresentable.Type && error.path == notCaseIterable.path
        {
            // Its `init(from:)` refused the stand-in raw value: an enum whose cases the walk cannot list.
            throw notCaseIterable
        }
        // An enum that took the stand-in (a case whose raw value is "" or 0) would be described as any string or
        // integer; a struct wrapping a raw value (any value) is.
        if T.self is any RawRepresentable.Type, Mirror(reflecting: walked.value).displayStyle == .enum {
            throw notCaseIterable
        }
        return walked
    }

    /// Runs `T.init(from:)` on a `SchemaDecoder`.
    private func decode<T: Decodable>(_ type: T.Type, at path: [String]) throws -> (schema: ContractSchema, value: T) {
        let decoder = SchemaDecoder(recorder: self, path: path)
        // Its walk inside itself would be the same walk again, forever.
        if self.walking.contains(where: { $0.type == ObjectIdentifier(T.self) }) {
            throw self.recursion(at: path, "\(T.self)")
        }
        self.walking.append((ObjectIdentifier(T.self), "\(T.self)", path))
        defer { self.walking.removeLast() }
        let value: T
        do {
            value = try T(from: decoder)
        } catch let error as ContractError {
            throw error
        } catch {
            if let failure { throw failure }
            throw self.error(
                path,
                "\(T.self).init(from:) threw on stand-in values (\(error)): it checks or branches on the values it "
                    + "decodes, which a contract cannot describe; decode plain fields (optional where they may be "
                    + "absent) and check them after decoding")
        }
        if let failure { throw failure }
        return (try decoder.schema(of: T.self), value)
    }

    func display(_ path: [String]) -> String { ContractError.display(root: self.root, path) }

    private func recursion(at path: [String], _ name: String) -> ContractError {
        self.error(
            path,
            "\(name) contains itself (directly, or through an optional or an array): the contract language has no "
                + "references, so a recursive type cannot be described; bound the recursion (a fixed number of levels "
                + "of distinct types) or flatten it")
    }

    func walkAny(_ type: any Decodable.Type, at path: [String]) throws -> ContractSchema {
        try self.walk(type, at: path).schema
    }

    private func enumeration<E: CaseIterable & RawRepresentable>(
        _ type: E.Type, at path: [String]
    ) throws -> (ContractSchema, E) {
        guard let first = E.allCases.first else {
            throw self.error(path, "\(E.self) has no cases: no value decodes into it")
        }
        let raw = E.allCases.map(\.rawValue)
        if let strings = raw as? [String] { return (.stringEnum(strings), first) }
        if let ints = raw as? [Int] { return (.integerEnum(ints), first) }
        throw self.error(
            path, "\(E.self) has raw values of type \(E.RawValue.self): the contract language has String and Int enums")
    }

    /// Foundation's scalars and the ones whose `init(from:)` needs a payload (`Date`, `URL`, `UUID`, `Data`,
    /// `Decimal`), with a stand-in value for each.
    static func scalar(_ type: Any.Type) -> (ContractSchema, Any)? {
        func sized<I: FixedWidthInteger>(_ type: I.Type) -> ContractSchema {
            .integer(minimum: Int64(I.min), maximum: UInt64(I.max))
        }
        switch type {
        case is String.Type: return (.string(format: nil), "")
        case is Bool.Type: return (.boolean, false)
        case is Int.Type: return (.integer(minimum: nil, maximum: nil), 0 as Int)
        case is UInt.Type: return (.integer(minimum: 0, maximum: nil), 0 as UInt)
        case is Int8.Type: return (sized(Int8.self), 0 as Int8)
        case is Int16.Type: return (sized(Int16.self), 0 as Int16)
        case is Int32.Type: return (sized(Int32.self), 0 as Int32)
        case is Int64.Type: return (sized(Int64.self), 0 as Int64)
        case is UInt8.Type: return (sized(UInt8.self), 0 as UInt8)
        case is UInt16.Type: return (sized(UInt16.self), 0 as UInt16)
        case is UInt32.Type: return (sized(UInt32.self), 0 as UInt32)
        case is UInt64.Type: return (sized(UInt64.self), 0 as UInt64)
        case is Double.Type: return (.number(minimum: nil, maximum: nil), 0 as Double)
        case is Float.Type:
            let bound = Double(Float.greatestFiniteMagnitude)
            return (.number(minimum: -bound, maximum: bound), 0 as Float)
        case is Decimal.Type: return (.number(minimum: nil, maximum: nil), Decimal(0))
        case is Date.Type: return (.date, Date(timeIntervalSinceReferenceDate: 0))
        case is URL.Type: return (.string(format: "uri"), URL(string: "https://example.com")!)
        case is UUID.Type: return (.string(format: "uuid"), UUID())
        case is Data.Type: return (.string(format: "byte"), Data())
        default: return nil
        }
    }
}
