import NIOCore

/// Request bodies the transport tests send.
public enum Payloads {
    public static let update = ByteBuffer(
        string: #"{"aps":{"timestamp":1790000000,"event":"update","content-state":{"remaining":30,"status":"open"}}}"#)

    public static func oversized() -> ByteBuffer {
        let filler = String(repeating: "x", count: 4200)
        return ByteBuffer(
            string: #"{"aps":{"timestamp":1790000000,"event":"update","content-state":{"pad":"\#(filler)"}}}"#)
    }
}

/// Distinct device tokens: 32 bytes of hex.
public func deviceToken(_ n: Int) -> String {
    let hex = String(n, radix: 16)
    return String(repeating: "0", count: 64 - hex.count) + hex
}
