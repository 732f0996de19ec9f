import Hummingbird
import NIOCore

/// `{"ok":true,"result":"<word>"}`, the device API's answer (`started`, `rotated`, `created`...), written without an
/// encoder: `OK` with a `JSONEncoder` took 4% of the gateway's CPU under the registry bench (`perf`), for one field.
/// A word of lowercase letters and underscores needs no escaping; anything else goes through `OK`.
struct OKResult: ResponseGenerator {
    var result: String
    var status: HTTPResponse.Status = .ok

    init(_ result: String, status: HTTPResponse.Status = .ok) {
        self.result = result
        self.status = status
    }

    struct Body: Encodable, Sendable { var result: String }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        guard let buffer = Self.written(self.result) else {
            return try OK(Body(result: self.result), status: self.status).response(from: request, context: context)
        }
        return Response(
            status: self.status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: buffer)
        )
    }

    /// The answer's bytes; nil for a result that is not a word of lowercase letters and underscores.
    static func written(_ result: String) -> ByteBuffer? {
        guard
            result.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "_") })
        else { return nil }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(32 + result.utf8.count)
        buffer.writeStaticString(#"{"ok":true,"result":""#)
        buffer.writeString(result)
        buffer.writeStaticString(#""}"#)
        return buffer
    }
}
