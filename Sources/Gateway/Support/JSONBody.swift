import Foundation
import Hummingbird
import LiveActivitiesCore
import NIOCore
import PostgresStore

/// One decoder and one encoder for every request: both are `Sendable` and their settings never change after this.
private let jsonBodyDecoder = JSONDecoder()
private let jsonBodyEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
}()

extension Request {
    /// Reads at most `limit` bytes and decodes them strictly: unknown fields and type errors become a 400
    /// naming the field, an over-size body a 413.
    func decodeJSON<T: Decodable>(_ type: T.Type, limit: Int) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await self.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge(limit: limit)
        }
        guard buffer.readableBytes > 0 else {
            throw APIError.validation(ValidationError(path: "", rule: "a JSON object is required"))
        }
        let data = Data(buffer: buffer)
        // NUL and other control characters are refused wherever they are, by the path of the first (a NUL reached
        // PostgreSQL as a 500 before). Free text may keep tab and line feeds; names and ids refuse those too.
        if buffer.withUnsafeReadableBytes({ ControlCharacters.mayOccur(inJSON: $0) }),
            let any = try? jsonBodyDecoder.decode(JSONValue.self, from: data),
            let path = ControlCharacters.path(in: any)
        {
            throw APIError.validation(ValidationError(path: path, rule: ControlCharacters.rule))
        }
        do {
            return try jsonBodyDecoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw APIError.validation(ValidationError(decoding: error))
        } catch let error as ValidationError {
            throw APIError.validation(error)
        }
    }
}

/// A JSON response body with `"ok": true` first, as Airship's are.
struct OK<Body: Encodable & Sendable>: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    var body: Body

    init(_ body: Body, status: HTTPResponse.Status = .ok) {
        self.body = body
        self.status = status
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var data = Data("{\"ok\":true".utf8)
        let inner = try jsonBodyEncoder.encode(self.body)
        if inner.count > 2 {  // splice the body's fields after "ok"
            data.append(UInt8(ascii: ","))
            data.append(inner.dropFirst())
        } else {
            data.append(UInt8(ascii: "}"))
        }
        return Response(
            status: self.status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

struct Empty: Encodable, Sendable {}
