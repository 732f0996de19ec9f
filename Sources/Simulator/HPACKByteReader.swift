import APNsTransport
import Foundation
import NIOCore
import NIOHPACK

/// Reads HPACK's primitives (RFC 7541 §5) from a header block's bytes: prefixed integers and string literals.
struct HPACKByteReader {
    /// The last long Huffman-coded string read on a connection, and its text. A client that sends a long value in
    /// full with every request has it decoded once: nghttp2 never indexes `authorization` (it is sensitive), so
    /// `h2load` sends its JWT, ~180 Huffman-coded symbols, with each request. Shorter strings are decoded each time.
    struct Memo {
        static let minimumLength = 64
        var coded: [UInt8] = []
        var text = ""
    }

    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0
    var memo: Memo

    init(bytes: UnsafeRawBufferPointer, memo: Memo) {
        self.bytes = bytes
        self.memo = memo
    }

    func peek() -> UInt8? {
        self.offset < self.bytes.count ? self.bytes[self.offset] : nil
    }

    /// RFC 7541 §5.1: the low `prefix` bits of the first byte, then, if they are all ones, seven bits per byte
    /// while the top bit is set. Refused where NIOHPACK refuses it: past the end, or beyond an `Int`.
    mutating func integer(prefix: Int) throws(HeaderBlockDecodingError) -> Int {
        guard let first = self.peek() else { throw .init("integer past the end") }
        self.offset += 1
        let mask = (1 << prefix) - 1
        var value = Int(first) & mask
        guard value == mask else { return value }
        var shift = 0
        while true {
            guard let byte = self.peek() else { throw .init("integer past the end") }
            self.offset += 1
            let (part, overflow) = Int(byte & 0x7f).multipliedReportingOverflow(by: 1 << shift)
            let (sum, carry) = value.addingReportingOverflow(part)
            guard !overflow, !carry else { throw .init("integer beyond 64 bits") }
            value = sum
            shift += 7
            guard shift < Int.bitWidth else { throw .init("integer beyond 64 bits") }
            if byte & 0x80 == 0 { return value }
        }
    }

    /// RFC 7541 §5.2: a Huffman flag and a length, then that many bytes, raw or Huffman-coded.
    mutating func string() throws(HeaderBlockDecodingError) -> String {
        let huffman = (self.peek() ?? 0) & 0x80 != 0
        let length = try self.integer(prefix: 7)
        guard length <= self.bytes.count - self.offset else { throw .init("string of \(length) bytes past the end") }
        let start = self.offset
        self.offset += length
        let raw = UnsafeRawBufferPointer(rebasing: self.bytes[start..<start + length])
        guard huffman else { return String(decoding: raw, as: UTF8.self) }
        guard length >= Memo.minimumLength else { return try Self.huffmanDecoded(raw) }
        let same =
            self.memo.coded.count == length
            && self.memo.coded.withUnsafeBytes { memcmp($0.baseAddress!, raw.baseAddress!, length) == 0 }
        if same { return self.memo.text }
        let text = try Self.huffmanDecoded(raw)
        self.memo.coded.removeAll(keepingCapacity: true)
        self.memo.coded.append(contentsOf: raw)
        self.memo.text = text
        return text
    }

    private static func huffmanDecoded(_ raw: UnsafeRawBufferPointer) throws(HeaderBlockDecodingError) -> String {
        if let decoded = HuffmanStringDecoder.shared.decode(raw) { return decoded }
        return try Self.nioDecoded(huffmanBytes: raw)
    }

    /// A Huffman string with codes beyond ASCII (or a broken one), decoded by NIOHPACK alone: as the value of a
    /// literal that is not indexed, so no table is involved.
    private static func nioDecoded(huffmanBytes: UnsafeRawBufferPointer) throws(HeaderBlockDecodingError) -> String {
        var block = ByteBuffer()
        block.writeBytes([0x00, 0x01, UInt8(ascii: "x")])  // without indexing; a raw one-byte name
        HPACKPrimitives.writeInteger(huffmanBytes.count, prefix: 7, flags: 0x80, &block)
        block.writeBytes(huffmanBytes)
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: 0, maxHeaderListSize: .max)
        do {
            guard let field = try decoder.decodeHeaders(from: &block).first else {
                throw HeaderBlockDecodingError("no field")
            }
            return field.value
        } catch {
            throw HeaderBlockDecodingError("Huffman string: \(error)")
        }
    }
}
