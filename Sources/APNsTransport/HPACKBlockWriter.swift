/// Writes a header block into memory reserved for it in one `ByteBuffer` access: written byte by byte through the
/// buffer, each byte was a runtime-checked access to its storage (8% of the client's CPU in `make bench`).
/// The caller reserves `HPACKRequestEncoder.bound(...)` bytes; every write stays inside them (a precondition: past
/// them would be out of bounds, so it traps rather than write there).
struct HPACKBlockWriter {
    private let base: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init(_ base: UnsafeMutableRawBufferPointer) {
        self.base = base
    }

    mutating func byte(_ value: UInt8) {
        precondition(self.count < self.base.count, "HPACK block past its reserved bytes")
        self.base[self.count] = value
        self.count += 1
    }

    mutating func bytes(_ utf8: String.UTF8View) {
        let n = utf8.count
        precondition(self.count + n <= self.base.count, "HPACK block past its reserved bytes")
        UnsafeMutableRawBufferPointer(rebasing: self.base[self.count..<(self.count + n)]).copyBytes(from: utf8)
        self.count += n
    }

    mutating func bytes(_ string: StaticString) {
        let n = string.utf8CodeUnitCount
        precondition(self.count + n <= self.base.count, "HPACK block past its reserved bytes")
        UnsafeMutableRawBufferPointer(rebasing: self.base[self.count..<(self.count + n)])
            .copyMemory(from: UnsafeRawBufferPointer(start: string.utf8Start, count: n))
        self.count += n
    }

    /// An HPACK integer with an N-bit prefix (RFC 7541 §5.1); `flags` fills the bits above the prefix.
    mutating func integer(_ value: Int, prefix: Int, flags: UInt8) {
        HPACKPrimitives.integer(value, prefix: prefix, flags: flags) { self.byte($0) }
    }

    /// A string literal, not Huffman-coded (H = 0).
    mutating func string(_ string: String) {
        let utf8 = string.utf8
        self.integer(utf8.count, prefix: 7, flags: 0)
        self.bytes(utf8)
    }
}
