/// A 4xx from the gateway, as its error shape says it: `{"ok":false, "error", "error_code", "details":{"path",
/// "rule"}, "request_id"}`.
public struct GatewayRejection: Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    /// The gateway's sentence, naming the field and the rule.
    public var message: String
    public var errorCode: Int?
    /// The JSON path (or `header:`/`query:` name) of what was refused.
    public var path: String?
    public var rule: String?
    public var requestID: String?

    public init(
        status: Int, message: String, errorCode: Int? = nil, path: String? = nil, rule: String? = nil,
        requestID: String? = nil
    ) {
        self.status = status
        self.message = message
        self.errorCode = errorCode
        self.path = path
        self.rule = rule
        self.requestID = requestID
    }

    public var description: String {
        "\(self.status) \(self.errorCode.map(String.init) ?? "-") \(self.message)"
            + (self.path.map { " (path: \($0))" } ?? "") + (self.requestID.map { " [request \($0)]" } ?? "")
    }
}
