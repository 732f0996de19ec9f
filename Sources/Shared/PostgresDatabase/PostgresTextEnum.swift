import LiveActivitiesCore
import NIOCore
import PostgresNIO

/// A type stored as its text raw value, through PostgresNIO's coding: states and job kinds go to and from their
/// `text` columns typed, never as loose strings.
public protocol PostgresTextEnum: RawRepresentable, PostgresNonThrowingEncodable, PostgresDecodable
where RawValue == String {}

/// A text value that names no case of the type it was read as.
public struct PostgresTextEnumError: Error, CustomStringConvertible {
    public var type: String
    public var value: String
    public var description: String { "'\(self.value)' is not a \(self.type)" }
}

extension PostgresTextEnum {
    public static var psqlType: PostgresDataType { .text }
    public static var psqlFormat: PostgresFormat { .binary }

    public func encode<Encoder: PostgresJSONEncoder>(
        into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<Encoder>
    ) {
        self.rawValue.encode(into: &byteBuffer, context: context)
    }

    public init<Decoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat,
        context: PostgresDecodingContext<Decoder>
    ) throws {
        let text = try String(from: &buffer, type: type, format: format, context: context)
        guard let value = Self(rawValue: text) else {
            throw PostgresTextEnumError(type: "\(Self.self)", value: text)
        }
        self = value
    }
}

extension PushState: PostgresTextEnum {}
extension ScheduleState: PostgresTextEnum {}
