/// A `Date` field given as Unix seconds or ISO 8601 and sent as what the device decodes: seconds since
/// 00:00:00 UTC on 1 January 2001. The push's answer lists each one, so nothing is changed without a word.
public struct ContractDateConversion: Sendable, Equatable, Encodable {
    public enum Given: String, Sendable, Encodable {
        case unixSeconds = "unix_seconds"
        case iso8601 = "iso8601"
    }

    public var path: String
    public var given: Given
    /// Seconds since 1 January 2001, as sent.
    public var value: Double

    public init(path: String, given: Given, value: Double) {
        self.path = path
        self.given = given
        self.value = value
    }
}
