/// One node of a contract: the shape a default `JSONDecoder` accepts for one Swift type, in the JSON Schema subset the
/// gateway validates (`docs/contracts.md`). Made by `ActivityContract.make`, encoded by `ActivityContract.jsonData`.
public indirect enum ContractSchema: Sendable, Equatable, Encodable {
    /// A struct: its properties by JSON key; `required` lists those decoded with `decode` (the others may be absent
    /// or null, as `decodeIfPresent` allows).
    case object(properties: [String: ContractSchema], required: [String])
    /// `[String: X]`.
    case dictionary(values: ContractSchema)
    /// `[X]`, `Set<X>`.
    case array(items: ContractSchema)
    /// `String` (no format), `UUID` (`"uuid"`), `URL` (`"uri"`), `Data` (`"byte"`: base64).
    case string(format: String?)
    /// A `CaseIterable` enum with `String` raw values: all of them.
    case stringEnum([String])
    /// Integers; the bounds of the sized ones (a minimum is never above 0, a maximum never below, so these types hold
    /// every bound from `Int64.min` to `UInt64.max` exactly).
    case integer(minimum: Int64?, maximum: UInt64?)
    /// A `CaseIterable` enum with `Int` raw values: all of them.
    case integerEnum([Int])
    /// `Double`, `Decimal`; `Float` with its bounds.
    case number(minimum: Double?, maximum: Double?)
    case boolean
    /// Foundation's `Date` under a default `JSONDecoder`: seconds since 1 January 2001 (`x-swift-type: Date`).
    case date
    /// An optional element (`[Int?]`): its type is `[type, "null"]`. Optional properties are not nullable nodes: they
    /// are left out of `required`.
    case nullable(ContractSchema)

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ContractKey.self)
        try self.encode(into: &container, nullable: false)
    }

    private func encode(into container: inout KeyedEncodingContainer<ContractKey>, nullable: Bool) throws {
        func type(_ name: String) throws {
            if nullable {
                try container.encode([name, "null"], forKey: "type")
            } else {
                try container.encode(name, forKey: "type")
            }
        }
        switch self {
        case .object(let properties, let required):
            try type("object")
            try container.encode(properties, forKey: "properties")
            try container.encode(required, forKey: "required")
        case .dictionary(let values):
            try type("object")
            try container.encode(values, forKey: "additionalProperties")
        case .array(let items):
            try type("array")
            try container.encode(items, forKey: "items")
        case .string(let format):
            try type("string")
            try container.encodeIfPresent(format, forKey: "format")
        case .stringEnum(let values):
            try type("string")
            try container.encode(values, forKey: "enum")
        case .integer(let minimum, let maximum):
            try type("integer")
            try container.encodeIfPresent(minimum, forKey: "minimum")
            try container.encodeIfPresent(maximum, forKey: "maximum")
        case .integerEnum(let values):
            try type("integer")
            try container.encode(values, forKey: "enum")
        case .number(let minimum, let maximum):
            try type("number")
            try container.encodeIfPresent(minimum, forKey: "minimum")
            try container.encodeIfPresent(maximum, forKey: "maximum")
        case .boolean:
            try type("boolean")
        case .date:
            try type("number")
            try container.encode("Date", forKey: "x-swift-type")
        case .nullable(let wrapped):
            try wrapped.encode(into: &container, nullable: true)
        }
    }
}
