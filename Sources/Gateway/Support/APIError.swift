import Foundation
import HTTPTypes
import Hummingbird
import LiveActivitiesCore
import PostgresStore

/// Stable numeric codes for clients that branch on errors (the `error_code` of every error body).
enum ErrorCode: Int, Sendable {
    case invalidField = 40001
    case unknownField = 40002
    case malformedBody = 40003
    case unauthorized = 40101
    case forbidden = 40301
    case notFound = 40401
    case conflict = 40901
    case bodyTooLarge = 41301
    case tooManyRequests = 42901
    case unavailable = 50301
    case internalError = 50001
}

/// Every error a client sees: `{"ok":false,"error":"...","error_code":N,"details":{...},"request_id":"..."}`, the
/// request id as the log lines of the request carry it. Never SQL, never secrets.
struct APIError: Error, HTTPResponseError {
    var status: HTTPResponse.Status
    var code: ErrorCode
    var message: String
    var details: [String: String]
    var headers: HTTPFields

    init(
        _ status: HTTPResponse.Status, code: ErrorCode, _ message: String, details: [String: String] = [:],
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }

    static func validation(_ error: ValidationError) -> APIError {
        let isUnknown = error.rule == ValidationError.unknownFieldRule
        let isMalformed = error.path.isEmpty
        let field = error.path.isEmpty ? "the body" : "'\(error.path)'"
        return APIError(
            .badRequest,
            code: isUnknown ? .unknownField : isMalformed ? .malformedBody : .invalidField,
            isMalformed ? "The body is not valid: \(error.rule)." : "The field \(field) \(error.rule).",
            details: ["path": error.path, "rule": error.rule]
        )
    }

    static let unauthorized = APIError(
        .unauthorized, code: .unauthorized, "Valid credentials are required.",
        headers: [.wwwAuthenticate: "Basic realm=\"live-activities-gateway\", charset=\"UTF-8\""]
    )

    static let serverOnly = APIError(
        .forbidden, code: .forbidden, "This endpoint needs the master secret; the app secret may not call it.")

    /// The app secret may not write this field (the app's device permissions).
    static func deviceForbidden(_ refusal: ValidationError) -> APIError {
        APIError(
            .forbidden, code: .forbidden, "The field '\(refusal.path)' \(refusal.rule).",
            details: ["path": refusal.path, "rule": refusal.rule])
    }

    /// Anything a route did not expect (a database fault, a bug): the details stay in the log line, under the same
    /// request id.
    static let unexpected = APIError(
        .internalServerError, code: .internalError,
        "An unexpected error occurred; the request id identifies it in the gateway's log.")

    /// An unknown channel, or one whose secret a device call did not present: the same answer for both.
    /// `details.path` names the channel id: an app's client tells this 404 (register again) from a 404 of something
    /// under the channel (an activity name it does not track), which names its own field.
    static let channelNotFound = APIError(
        .notFound, code: .notFound, "The channel was not found, or X-Channel-Secret is not its channel_secret.",
        details: ["path": "channel_id"])

    /// A device registered an install id that has a channel, without that channel's secret.
    static let installIDTaken = APIError(
        .conflict, code: .conflict,
        "The field 'channel.install_id' is registered to a channel: present its channel_secret in X-Channel-Secret.",
        details: ["path": "channel.install_id", "header": "X-Channel-Secret"])

    /// A rate limit or quota: try again after `retryAfter` seconds.
    static func tooManyRequests(_ message: String, retryAfter: Int, details: [String: String] = [:]) -> APIError {
        APIError(
            .tooManyRequests, code: .tooManyRequests, message, details: details,
            headers: [.retryAfter: "\(retryAfter)"])
    }

    /// The gateway sheds load (`LoadShedder`): nothing was done; the same request may be sent again.
    static let overloaded = APIError(
        .serviceUnavailable, code: .unavailable, "The gateway is overloaded; retry after the time in Retry-After.",
        headers: [.retryAfter: "1"])

    /// The database could not be reached, or its answer was lost with its connection (a primary lost, a failover in
    /// progress): the request may or may not have been applied. Sent again with the same `Idempotency-Key`, a push is
    /// applied once.
    static let databaseUnavailable = APIError(
        .serviceUnavailable, code: .unavailable,
        "The database could not be reached; the request may or may not have been applied. Send it again after the time in Retry-After, with the same Idempotency-Key.",
        headers: [.retryAfter: "1"])

    static func notFound(_ what: String, path: String? = nil) -> APIError {
        APIError(.notFound, code: .notFound, "\(what) was not found.", details: path.map { ["path": $0] } ?? [:])
    }

    static func bodyTooLarge(limit: Int) -> APIError {
        APIError(
            .contentTooLarge, code: .bodyTooLarge, "The body is larger than \(limit) bytes.",
            details: ["limit": "\(limit)"])
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ErrorBody(
            ok: false, error: self.message, errorCode: self.code.rawValue, details: self.details,
            requestID: (context as? GatewayContext)?.requestID)
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        let data = try JSONEncoder().encode(body)
        return Response(status: self.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    struct ErrorBody: Encodable {
        var ok: Bool
        var error: String
        var errorCode: Int
        var details: [String: String]
        var requestID: String?

        enum CodingKeys: String, CodingKey {
            case ok, error, details
            case errorCode = "error_code"
            case requestID = "request_id"
        }
    }
}
