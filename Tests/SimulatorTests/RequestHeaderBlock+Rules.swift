import Testing

@testable import Simulator

@Suite struct RequestHeaderBlockTests {
    static let valid: [(String, String)] = [
        (":method", "POST"), (":scheme", "https"), (":path", "/3/device/abcd"), (":authority", "api.push.apple.com"),
        ("authorization", "bearer a.b.c"), ("apns-push-type", "liveactivity"), ("apns-topic", "com.example"),
        ("te", "trailers"),
    ]

    @Test func anAPNsRequestIsWellFormedAndCopiedOut() {
        let block = RequestHeaderBlock(Self.valid.map { (name: $0.0, value: $0.1) })
        #expect(block.violation == nil)
        #expect(block.method == "POST" && block.path == "/3/device/abcd")
        #expect(block.headers[":scheme"] == "https" && block.headers["apns-topic"] == "com.example")
        #expect(block.headers.count == 6)
    }

    static let broken: [(label: String, headers: [(String, String)])] = [
        ("upper-case name", valid + [("Apns-Priority", "10")]),
        ("space in a name", valid + [("apns priority", "10")]),
        ("connection-specific field", valid + [("connection", "keep-alive")]),
        ("transfer-encoding", valid + [("transfer-encoding", "chunked")]),
        ("te other than trailers", valid + [("te", "gzip")]),
        ("LF in a value", valid + [("apns-collapse-id", "a\nb")]),
        ("NUL in a value", valid + [("apns-collapse-id", "a\u{0}b")]),
        ("whitespace at an end", valid + [("apns-collapse-id", "ab ")]),
        ("pseudo-header after a regular one", [("apns-topic", "x")] + valid),
        ("repeated pseudo-header", valid.prefix(3) + [(":path", "/3/device/ef")]),
        ("unknown pseudo-header", valid.prefix(3) + [(":status", "200")]),
        ("missing :path", valid.filter { $0.0 != ":path" }),
        ("missing :scheme", valid.filter { $0.0 != ":scheme" }),
    ]

    @Test(arguments: broken.indices) func aMalformedBlockNamesTheRuleItBreaks(_ index: Int) {
        let (label, headers) = Self.broken[index]
        #expect(RequestHeaderBlock(headers.map { (name: $0.0, value: $0.1) }).violation != nil, "\(label)")
    }
}
