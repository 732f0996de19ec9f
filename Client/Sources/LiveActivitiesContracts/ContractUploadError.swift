import Foundation

/// The gateway refused a contract: its answer `{"ok":false,"error","error_code","details","request_id"}` (see
/// `docs/api.md`), or what was not sent.
public struct ContractUploadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status; nil when nothing was sent (a version out of range, a document that is not a contract).
    public var status: Int?
    public var error: String
    public var errorCode: Int?
    /// `details` as JSON text, keys sorted (`{"path":"content_state.properties.score","rule":"…"}`).
    public var details: String?
    public var requestID: String?

    public init(status: Int?, error: String, errorCode: Int? = nil, details: String? = nil, requestID: String? = nil) {
        self.status = status
        self.error = error
        self.errorCode = errorCode
        self.details = details
        self.requestID = requestID
    }

    /// From a non-2xx answer; a body that is not the gateway's error object is kept as text.
    public init(status: Int, body: Data) {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            self.init(status: status, error: String(decoding: body.prefix(1000), as: UTF8.self))
            return
        }
        var details: String?
        if let value = object["details"], !(value is NSNull),
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        {
            details = String(decoding: data, as: UTF8.self)
        }
        self.init(
            status: status, error: object["error"] as? String ?? "HTTP \(status)",
            errorCode: (object["error_code"] as? NSNumber)?.intValue, details: details,
            requestID: object["request_id"] as? String)
    }

    public var description: String {
        var text = self.status.map { "HTTP \($0)" } ?? "not sent"
        if let errorCode { text += " (\(errorCode))" }
        text += ": \(self.error)"
        if let details { text += " details: \(details)" }
        if let requestID { text += " request_id: \(requestID)" }
        return text
    }
}
