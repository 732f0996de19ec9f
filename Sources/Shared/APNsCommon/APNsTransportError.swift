/// Why a request got no answer from APNs.
public enum APNsTransportError: Error, Sendable, Equatable {
    /// No answer before the request's deadline.
    case deadlineExceeded
    /// The server said (GOAWAY / refused stream) it did not process the request: safe to send again.
    case notProcessed
    /// The connection died with the request in flight: it may or may not have been delivered.
    case connectionLost
    /// No connection could be made (DNS, TCP, TLS, ALPN).
    case connectFailed(String)
    /// The client is shutting down.
    case shutdown
}
