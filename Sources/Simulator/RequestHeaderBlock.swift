import Foundation

/// A request's header block as the simulator reads it, checked against HTTP/2's rules for requests (RFC 9113
/// §8.2 and §8.3) in the same pass that copies it out. NIO's header-block validation checks the same rules, but
/// costs the simulator ~14% of its CPU under load (a second pass, and per-byte closures over every value), so the
/// simulator turns it off and applies these instead; a request breaking them gets RST_STREAM(PROTOCOL_ERROR), as
/// from any HTTP/2 server.
struct RequestHeaderBlock {
    /// The headers APNs reads, picked out while the block is copied (a later repeat wins, as in a dictionary).
    struct APNsFields {
        var authorization: String?
        var topic: String?
        var pushType: String?
        var priority: String?
        var expiration: String?
        var id: String?
        var collapseID: String?
    }

    var method: String?
    var path: String?
    var apns = APNsFields()
    /// Every field but `:method` and `:path`, in order. Recordings keep them; nothing on the hot path hashes them.
    private(set) var fields: [(name: String, value: String)] = []
    /// The first rule the block breaks, nil when it is well-formed.
    private(set) var violation: String?

    /// The fields by name, for recordings and tests.
    var headers: [String: String] { Dictionary(self.fields, uniquingKeysWith: { $1 }) }

    init(_ block: [(name: String, value: String)]) {
        self.fields.reserveCapacity(block.count)  // an APNs request has 5 to 8 regular headers
        var regularSeen = false
        var scheme = false
        var authority = false
        for (name, value) in block {
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
                case ":method" where self.method == nil:
                    self.method = value
                    continue
                case ":path" where self.path == nil:
                    self.path = value
                    continue
                case ":scheme" where !scheme: scheme = true
                case ":authority" where !authority: authority = true
                default:
                    self.violation = "unknown or repeated pseudo-header \(name)"
                    return
                }
            } else {
                regularSeen = true
                // By length first: each name is then compared once at most (a string switch compares in turn).
                switch name.utf8.count {
                case 13 where name == "authorization": self.apns.authorization = value
                case 13 where name == "apns-priority": self.apns.priority = value
                case 10 where name == "apns-topic": self.apns.topic = value
                case 14 where name == "apns-push-type": self.apns.pushType = value
                case 15 where name == "apns-expiration": self.apns.expiration = value
                case 7 where name == "apns-id": self.apns.id = value
                case 16 where name == "apns-collapse-id": self.apns.collapseID = value
                default: break
                }
            }
            self.fields.append((name, value))
        }
        if self.method == nil || self.path == nil || !scheme {
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
        switch name.utf8.count {  // by length first, as above
        case 10 where name == "connection" || name == "keep-alive", 16 where name == "proxy-connection",
            17 where name == "transfer-encoding", 7 where name == "upgrade":
            return "connection-specific header \(name)"
        case 2 where name == "te" && value != "trailers":
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
            // memchr, not a loop over the bytes: a provider token is ~180 of them, in every request.
            let base = UnsafeRawPointer(bytes.baseAddress!)
            for forbidden: Int32 in [0x00, 0x0A, 0x0D] where memchr(base, forbidden, bytes.count) != nil {
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
