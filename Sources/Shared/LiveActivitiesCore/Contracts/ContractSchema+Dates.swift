import Foundation

extension ContractSchema {
    /// Apple: `Date`'s default decoding (`JSONDecoder.DateDecodingStrategy.deferredToDate`) reads "the number of
    /// seconds since 00:00:00 UTC on 1 January 2001" (`Date.timeIntervalSinceReferenceDate`); this is the Unix time of
    /// that instant.
    public static let referenceDateUnixSeconds: Int64 = 978_307_200

    /// `value` with every `Date` field given as Unix seconds or ISO 8601 turned into seconds since 2001, each change
    /// appended to `conversions`.
    ///
    /// A number at or above `referenceDateUnixSeconds` is taken as Unix seconds: as seconds since 2001 it would be
    /// a date after 1 January 2032, which no activity of today (at most 12 hours) can need. Milliseconds (above
    /// `LiveActivityNotification.latestSeconds`) are refused, as the push's own dates are.
    public func convertingDates(
        _ value: JSONValue, path: String, into conversions: inout [ContractDateConversion]
    ) throws(ValidationError) -> JSONValue {
        switch (self, value) {
        case (.nullable(let inner), _) where value != .null:
            return try inner.convertingDates(value, path: path, into: &conversions)
        case (.object(let properties, _, let additional), .object(var fields)):
            for (name, field) in fields {
                guard let schema = properties[name] ?? additional else { continue }
                fields[name] = try schema.convertingDates(field, path: "\(path).\(name)", into: &conversions)
            }
            return .object(fields)
        case (.array(let items), .array(var elements)):
            for index in elements.indices {
                elements[index] = try items.convertingDates(
                    elements[index], path: "\(path)[\(index)]", into: &conversions)
            }
            return .array(elements)
        case (.number(_, _, true), .integer(let seconds)):
            guard seconds >= Self.referenceDateUnixSeconds else { return value }
            try Self.refuseMilliseconds(Double(seconds), path: path)
            let since2001 = seconds - Self.referenceDateUnixSeconds
            conversions.append(.init(path: path, given: .unixSeconds, value: Double(since2001)))
            return .integer(since2001)
        case (.number(_, _, true), .number(let seconds)):
            guard seconds >= Double(Self.referenceDateUnixSeconds) else { return value }
            try Self.refuseMilliseconds(seconds, path: path)
            let since2001 = seconds - Double(Self.referenceDateUnixSeconds)
            conversions.append(.init(path: path, given: .unixSeconds, value: since2001))
            return .number(since2001)
        case (.number(_, _, true), .string(let text)):
            guard let date = Self.iso8601(text) else {
                throw ValidationError(
                    path: path, rule: "expected a date: ISO 8601 with a time zone, Unix seconds or seconds since 2001")
            }
            let since2001 = date.timeIntervalSinceReferenceDate
            conversions.append(.init(path: path, given: .iso8601, value: since2001))
            return since2001.rounded() == since2001 ? .integer(Int64(since2001)) : .number(since2001)
        default:
            return value
        }
    }

    private static func refuseMilliseconds(_ seconds: Double, path: String) throws(ValidationError) {
        guard seconds <= Double(LiveActivityNotification.latestSeconds) else {
            throw ValidationError(path: path, rule: "must be a date in seconds; this looks like milliseconds")
        }
    }

    /// `2026-11-27T15:00:00Z`, with or without fractional seconds, with `Z` or an offset.
    static func iso8601(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
