import APNsTransport
import NIOCore
import NIOHPACK
import Testing

@testable import Simulator

/// The simulator's HPACK decoder against NIOHPACK's, the oracle: the same blocks (from NIOHPACK's encoder, Huffman
/// on and off, every kind of indexing, across blocks that share a dynamic table) decode to the same fields, and
/// broken blocks are refused by both.
@Suite struct HeaderBlockDecoderTests {
    /// Reproducible randomness (xorshift64*).
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            self.state ^= self.state >> 12
            self.state ^= self.state << 25
            self.state ^= self.state >> 27
            return self.state &* 2_685_821_657_736_338_717
        }
    }

    static let names = [
        ":method", ":path", ":authority", "authorization", "apns-topic", "apns-id", "content-length", "x-custom",
        "user-agent", "accept-encoding", "apns-collapse-id",
    ]
    static let alphabets: [[Character]] = [
        Array("0123456789abcdef/"),
        (32..<127).map { Character(Unicode.Scalar(UInt8($0))) },
        (0..<128).map { Character(Unicode.Scalar(UInt8($0))) },
        Array("aé日本🙂/-Z~\u{7f}\u{80}\u{ff}"),
    ]

    /// Long values of one length that differ in their last byte only: a decoder that keeps the last one decoded
    /// must tell them apart.
    static let longValues = (0..<3).map { "bearer " + String(repeating: "eyJhbGciOiJFUzI1NiJ9.", count: 6) + "\($0)" }

    static func value(_ random: inout Seeded) -> String {
        if random.next() % 4 == 0 { return Self.longValues.randomElement(using: &random)! }
        let alphabet = Self.alphabets.randomElement(using: &random)!
        return String((0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
    }

    static func headers(_ random: inout Seeded) -> HPACKHeaders {
        var headers = HPACKHeaders()
        for _ in 0..<Int.random(in: 1...10, using: &random) {
            let indexing: HPACKIndexing = [.indexable, .nonIndexable, .neverIndexed].randomElement(using: &random)!
            let name =
                Bool.random(using: &random) ? Self.names.randomElement(using: &random)! : "n\(random.next() % 50)"
            // Repeats of a few values, so that the encoder names some by index.
            let value = Bool.random(using: &random) ? "v\(random.next() % 8)" : Self.value(&random)
            headers.add(name: name, value: value, indexing: indexing)
        }
        return headers
    }

    static func fields(_ headers: HPACKHeaders) -> [String] { headers.map { "\($0.name): \($0.value)" } }
    static func fields(_ decoded: [(name: String, value: String)]) -> [String] {
        decoded.map { "\($0.name): \($0.value)" }
    }

    @Test func everyByteOfEveryStringDecodesAsNIOHPACKEncodedIt() throws {
        var random = Seeded(state: 0x9E37_79B9_7F4A_7C15)
        var strings = (0..<128).map { String(decoding: [UInt8](repeating: UInt8($0), count: 3), as: UTF8.self) }
        strings += (0..<2000).map { _ in Self.value(&random) }
        for (index, string) in strings.enumerated() {
            var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: index % 3 != 0)
            var block = ByteBuffer()
            try encoder.encode(headers: HPACKHeaders([("x", string)]), to: &block)
            var ours = HeaderBlockDecoder(maxHeaderListSize: 1 << 14)
            let decoded = try ours.decode(block)
            #expect(decoded.count == 1 && decoded[0].value == string, "\(Array(string.utf8))")
        }
    }

    @Test func blocksSharingATableDecodeAsNIOHPACKDecodesThem() throws {
        var random = Seeded(state: 42)
        for connection in 0..<200 {
            var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: connection % 2 == 0)
            var theirs = HPACKDecoder(allocator: ByteBufferAllocator())
            var ours = HeaderBlockDecoder(maxHeaderListSize: HPACKDecoder.defaultMaxHeaderListSize)
            for _ in 0..<20 {
                if random.next() % 10 == 0 {
                    try encoder.setDynamicTableSize(Int(random.next() % 4097))
                }
                let headers = Self.headers(&random)
                var block = ByteBuffer()
                try encoder.encode(headers: headers, to: &block)
                let decoded = try ours.decode(block)
                let expected = try theirs.decodeHeaders(from: &block)
                #expect(Self.fields(decoded) == Self.fields(expected))
                #expect(Self.fields(expected) == Self.fields(headers))
            }
        }
    }

    /// Blocks with bytes changed, cut short or extended: refused by both decoders or decoded alike by both.
    @Test func brokenBlocksAreRefusedOrReadAsNIOHPACKDoes() throws {
        var random = Seeded(state: 7)
        var refused = 0
        for connection in 0..<3000 {
            var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: connection % 4 != 0)
            var theirs = HPACKDecoder(allocator: ByteBufferAllocator())
            var ours = HeaderBlockDecoder(maxHeaderListSize: HPACKDecoder.defaultMaxHeaderListSize)
            for _ in 0..<4 {
                var block = ByteBuffer()
                try encoder.encode(headers: Self.headers(&random), to: &block)
                var bytes = Array(block.readableBytesView)
                switch random.next() % 4 {
                case 0: bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.removeLast(Int(random.next() % UInt64(bytes.count)))
                case 2: bytes += (0..<Int(random.next() % 4)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                default: break
                }
                var mutated = ByteBuffer(bytes: bytes)
                let expected = try? theirs.decodeHeaders(from: &mutated)
                let decoded = try? ours.decode(ByteBuffer(bytes: bytes))
                #expect(decoded.map(Self.fields) == expected.map(Self.fields), "\(bytes)")
                // A refused block ends the connection: the encoder's table no longer matches either decoder's.
                if expected == nil {
                    refused += 1
                    break
                }
            }
        }
        #expect(refused > 1000)  // the mutations do reach the error paths
    }

    @Test func huffmanPaddingFollowsRFC7541() throws {
        // "0" is a five-bit code (RFC 7541 Appendix B): one byte is the code and three bits of padding.
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: true)
        var block = ByteBuffer()
        try encoder.encode(headers: HPACKHeaders([("x", "0")]), to: &block)
        let valid = Array(block.readableBytesView)
        let huffman = valid.count - 1  // the value is the block's last byte, its length byte before it
        #expect(valid[huffman - 1] == 0x81)
        // "padding strictly longer than 7 bits MUST be treated as a decoding error": a whole byte of ones more.
        var long = valid
        long[huffman - 1] = 0x82
        long.append(0xff)
        // "A padding not corresponding to the most significant bits of the code for the EOS symbol MUST be treated
        // as a decoding error": a zero among the three padding bits.
        var zero = valid
        zero[huffman] &= 0xfd
        // Exactly eight bits of ones: eight "0"s fill five bytes with no padding, then one byte of ones follows.
        var whole = ByteBuffer()
        var fresh = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: true)  // "x" not indexed yet
        try fresh.encode(headers: HPACKHeaders([("x", "00000000")]), to: &whole)
        var eight = Array(whole.readableBytesView)
        #expect(eight[eight.count - 6] == 0x85)
        eight[eight.count - 6] = 0x86
        eight.append(0xff)
        for bytes in [long, zero, eight] {
            var ours = HeaderBlockDecoder(maxHeaderListSize: 1 << 14)
            #expect(throws: HTTP2ConnectionError.self) { try ours.decode(ByteBuffer(bytes: bytes)) }
            var theirs = HPACKDecoder(allocator: ByteBufferAllocator())
            var buffer = ByteBuffer(bytes: bytes)
            #expect(throws: (any Error).self) { try theirs.decodeHeaders(from: &buffer) }
        }
        var ours = HeaderBlockDecoder(maxHeaderListSize: 1 << 14)
        #expect(try ours.decode(ByteBuffer(bytes: valid)).first?.value == "0")
        var again = HeaderBlockDecoder(maxHeaderListSize: 1 << 14)
        #expect(try again.decode(whole).first?.value == "00000000")
    }
}
