/// Device tokens and secrets never reach a log whole.
public enum Redact {
    /// `a1b2c3…(64)`: enough to correlate, not enough to use.
    public static func token(_ token: some StringProtocol) -> String {
        token.count <= 8 ? "…(\(token.count))" : "\(token.prefix(6))…(\(token.count))"
    }
}
