import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A request shed under load (`LoadShedder`): 503 with `Retry-After: 1` and `APIError.overloaded`'s body, whose bytes
/// are built once; only the request id is spliced in. Under three times the load it can serve, the gateway answers
/// two requests of three this way, and JSONEncoder for each was 6% of its CPU (perf, `make chaos` overload).
struct ShedError: Error, HTTPResponseError {
    var status: HTTPResponse.Status { APIError.overloaded.status }
    var headers: HTTPFields { Self.headers }

    static let headers: HTTPFields = {
        var headers = APIError.overloaded.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return headers
    }()

    /// The body before and after its request id: encoded once with a placeholder id, then cut around it.
    static let parts: (head: [UInt8], tail: [UInt8]) = {
        let body = APIError.ErrorBody(
            ok: false, error: APIError.overloaded.message, errorCode: APIError.overloaded.code.rawValue,
            details: [:], requestID: "\u{1}")
        let bytes = [UInt8]((try? JSONEncoder().encode(body)) ?? Data())
        // The placeholder's escaped form: \u0001.
        let marker = Array(#"\u0001"#.utf8)
        guard let at = bytes.firstRange(of: marker) else { return (bytes, []) }
        return (Array(bytes[..<at.lowerBound]), Array(bytes[at.upperBound...]))
    }()

    func response(from request: Request, context: some RequestContext) throws -> Response {
        // Request ids are Hummingbird's hex ids (`GatewayContext`); anything JSON would escape takes the slow path.
        guard let id = (context as? GatewayContext)?.requestID, !Self.parts.tail.isEmpty,
            id.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 >= 0x20 })
        else { return try APIError.overloaded.response(from: request, context: context) }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(Self.parts.head.count + id.utf8.count + Self.parts.tail.count)
        buffer.writeBytes(Self.parts.head)
        buffer.writeString(id)
        buffer.writeBytes(Self.parts.tail)
        return Response(status: self.status, headers: self.headers, body: .init(byteBuffer: buffer))
    }
}
