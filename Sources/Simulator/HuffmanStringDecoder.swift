import NIOCore
import NIOHPACK

/// Decodes HPACK's Huffman-coded strings (RFC 7541 §5.2) for the simulator's header blocks: a table lookup per
/// symbol for the printable-ASCII codes that request headers are made of, NIOHPACK's decoder for anything else.
///
/// The code table is not transcribed here: it is read at start-up from NIOHPACK's encoder, which writes the
/// code of each ASCII byte (a string of eight copies of a byte is exactly as many bytes long as that byte's code is
/// bits). A string holding a code of a byte above 127, the EOS symbol or padding other than ones is handed to
/// NIOHPACK whole, which decodes it or names the error, so every input is decoded exactly as NIOHPACK does.
/// NIOHPACK's own decoder walks every string four bits at a time through a state table; under `h2load`, which
/// Huffman-codes its `:path` and its never-indexed `authorization` in every request, that was 15% of the
/// simulator's CPU.
struct HuffmanStringDecoder: Sendable {
    /// Bits looked up at once: the codes of letters, digits and `/-._:` are at most this long (the longer ASCII
    /// codes are looked up by length, one at a time).
    static let lookupBits = 12

    /// For each `lookupBits`-bit window: the byte whose code starts it and that code's length, or length 0 when no
    /// ASCII code of at most `lookupBits` bits does.
    private let window: [UInt16]
    /// ASCII codes longer than `lookupBits`, by length and code.
    private let longCodes: [UInt64: UInt8]
    private let longestCode: Int
    private let shortestCode: Int

    static let shared = HuffmanStringDecoder()

    private init() {
        var codes: [(byte: UInt8, code: UInt64, length: Int)] = []
        for byte in UInt8(0)..<128 {
            codes.append(Self.code(of: byte))
        }
        var window = [UInt16](repeating: 0, count: 1 << Self.lookupBits)
        var longCodes: [UInt64: UInt8] = [:]
        for (byte, code, length) in codes {
            if length <= Self.lookupBits {
                let first = Int(code) << (Self.lookupBits - length)
                for low in 0..<(1 << (Self.lookupBits - length)) {
                    window[first | low] = UInt16(length) << 8 | UInt16(byte)
                }
            } else {
                longCodes[UInt64(length) << 32 | code] = byte
            }
        }
        self.window = window
        self.longCodes = longCodes
        self.longestCode = codes.map(\.length).max() ?? 0
        self.shortestCode = codes.map(\.length).min() ?? 1
    }

    /// The code of an ASCII byte, as NIOHPACK's encoder writes it.
    private static func code(of byte: UInt8) -> (byte: UInt8, code: UInt64, length: Int) {
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: true)
        var out = ByteBuffer()
        let value = String(decoding: [UInt8](repeating: byte, count: 8), as: UTF8.self)
        // A literal with a literal name (one byte), the name's string, then the value's string.
        try! encoder.encode(headers: HPACKHeaders([("x", value)]), to: &out)  // in memory: cannot fail
        _ = out.readInteger(as: UInt8.self)
        let nameLength = Int(out.readInteger(as: UInt8.self)! & 0x7f)
        out.moveReaderIndex(forwardBy: nameLength)
        let length = Int(out.readInteger(as: UInt8.self)! & 0x7f)  // eight copies: the code's bits, in bytes
        // The first copy is the top `length` bits; at most 30 of them, so its first eight bytes hold it.
        let head = min(length, 8)
        var bits: UInt64 = 0
        for octet in out.readBytes(length: head)! { bits = bits << 8 | UInt64(octet) }
        return (byte, bits >> UInt64(8 * head - length), length)
    }

    /// The decoded string; nil if it holds anything but ASCII codes and padding of ones (the caller then asks
    /// NIOHPACK). RFC 7541 §5.2: "padding ... corresponding to the most significant bits of the code for the EOS
    /// symbol", "A padding strictly longer than 7 bits MUST be treated as a decoding error."
    func decode(_ bytes: UnsafeRawBufferPointer) -> String? {
        var ascii = true
        // Each symbol takes at least `shortestCode` bits: the most the bytes can hold.
        let decoded = String(unsafeUninitializedCapacity: bytes.count * 8 / self.shortestCode + 1) { out in
            self.window.withUnsafeBufferPointer { window in
                var bits: UInt64 = 0
                var count = 0  // bits held, at the low end of `bits`
                var index = 0
                var written = 0
                let mask = UInt64(1) &<< UInt64(Self.lookupBits) &- 1
                while true {
                    while count <= 56, index < bytes.count {
                        bits = bits &<< 8 | UInt64(bytes[index])
                        count &+= 8
                        index &+= 1
                    }
                    // With 30 bits or more held, any code is whole; fewer happen only at the end.
                    if count >= 30 {
                        let entry = window[Int(truncatingIfNeeded: (bits &>> UInt64(count &- Self.lookupBits)) & mask)]
                        if entry > 0xff {
                            out[written] = UInt8(truncatingIfNeeded: entry)
                            written &+= 1
                            count &-= Int(entry &>> 8)
                        } else if let (byte, length) = self.longCode(bits, count: count) {
                            out[written] = byte
                            written &+= 1
                            count &-= length
                        } else {
                            ascii = false
                            return 0
                        }
                        continue
                    }
                    if count == 0 { return written }
                    // The last bits, padded with ones (what padding is) to a whole window.
                    let padded =
                        count >= Self.lookupBits
                        ? (bits &>> UInt64(count &- Self.lookupBits)) & mask
                        : (bits &<< UInt64(Self.lookupBits &- count)
                            | (UInt64(1) &<< UInt64(Self.lookupBits &- count) &- 1))
                            & mask
                    let entry = window[Int(truncatingIfNeeded: padded)]
                    let length = Int(entry &>> 8)
                    if length > 0, length <= count {
                        out[written] = UInt8(truncatingIfNeeded: entry)
                        written &+= 1
                        count &-= length
                        continue
                    }
                    if length == 0, let (byte, long) = self.longCode(bits, count: count) {
                        out[written] = byte
                        written &+= 1
                        count &-= long
                        continue
                    }
                    // No ASCII code: what is left must be padding, fewer than eight ones.
                    let ones = (UInt64(1) &<< UInt64(count)) &- 1
                    guard count < 8, bits & ones == ones else {
                        ascii = false
                        return 0
                    }
                    return written
                }
            }
        }
        return ascii ? decoded : nil
    }

    /// An ASCII code longer than the window at the front of the `count` bits held.
    private func longCode(_ bits: UInt64, count: Int) -> (UInt8, Int)? {
        guard count > Self.lookupBits else { return nil }
        for length in (Self.lookupBits + 1)...min(self.longestCode, count) {
            let code = (bits >> UInt64(count - length)) & ((1 << UInt64(length)) - 1)
            if let byte = self.longCodes[UInt64(length) << 32 | code] { return (byte, length) }
        }
        return nil
    }
}
