import NIOHPACK

/// A request's header block as the simulator reads it, checked against HTTP/2's rules for requests (RFC 9113
/// §8.2 and §8.3) in the same pass that copies it out. NIO's header-block validation checks the same rules, but
/// costs the simulator ~14% of its CPU under load (a second pass, and per-byte closures over every value), so the
/// simulator turns it off and applies these instead; a request breaking them gets RST_STREAM(PROTOCOL_ERROR), as
/// from any HTTP/2 server.
struct RequestHeaderBlock {
    var method: String?
    var path: String?
    var headers = [String: String](minimumCapacity: 8)  // an APNs request has 5 to 8 regular headers
    /// The first rule the block breaks, nil when it is well-formed.
    private(set) var violation: String?

    init(_ block: HPACKHeaders) {
        var regularSeen = false
        for (name, value, _) in block {
            if let broken = Self.check(name: name, value: value) {
                self.violation = broken
                return
            }
            if name.utf8.first == UInt8(ascii: ":") {
                guard !regularSeen else {
                    self.violation = "pseudo-header \(name) after a regular header"
                    return
                }
                switch name {
                case ":method" where self.method == nil: self.method = value
                case ":path" where self.path == nil: self.path = value
                case ":scheme" where self.headers[name] == nil, ":authority" where self.headers[name] == nil:
                    self.headers[name] = value
                default:
                    self.violation = "unknown or repeated pseudo-header \(name)"
                    return
                }
            } else {
                regularSeen = true
                self.headers[name] = value
            }
        }
        if self.method == nil || self.path == nil || self.headers[":scheme"] == nil {
            self.violation = "a request needs :method, :scheme and :path"
        }
    }

    /// The rule a field breaks, if any: names are lower-case tokens, connection-specific fields are forbidden,
    /// `te` may only say `trailers`, and values hold no NUL, CR or LF and no whitespace at either end.
    static func check(name: String, value: String) -> String? {
        var name = name
        let nameIsToken = name.withUTF8 { bytes in
            let body = bytes.first == UInt8(ascii: ":") ? UnsafeBufferPointer(rebasing: bytes.dropFirst()) : bytes
            let (low, high) = Self.lowerCaseTokenMask
            for byte in body {
                let bit = UInt64(1) << (byte & 63)
                guard byte < 128, (byte < 64 ? low : high) & bit != 0 else { return false }
            }
            return !body.isEmpty
        }
        guard nameIsToken else { return "header name \(name) is not a lower-case token" }
        switch name {
        case "connection", "proxy-connection", "keep-alive", "transfer-encoding", "upgrade":
            return "connection-specific header \(name)"
        case "te" where value != "trailers":
            return "te other than trailers"
        default:
            break
        }
        var value = value
        return value.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last else { return nil }
            if first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09 {
                return "value of \(name) starts or ends with whitespace"
            }
            for byte in bytes where byte == 0x00 || byte == 0x0A || byte == 0x0D {
                return "value of \(name) holds NUL, CR or LF"
            }
            return nil
        }
    }

    /// `isLowerCaseTokenByte` as two 64-bit masks, for bytes 0-63 and 64-127.
    static let lowerCaseTokenMask: (UInt64, UInt64) = {
        var masks: (UInt64, UInt64) = (0, 0)
        for byte in UInt8(0)..<128 where Self.isLowerCaseTokenByte(byte) {
            if byte < 64 { masks.0 |= 1 << byte } else { masks.1 |= 1 << (byte - 64) }
        }
        return masks
    }()

    /// RFC 9110's `tchar` without upper-case letters.
    static func isLowerCaseTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
            UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
