import APNsTransport
import NIOCore
import NIOHPACK

/// The simulator's HPACK decoder (RFC 7541): a connection's header blocks, in order, to their fields.
///
/// It decodes exactly what NIOHPACK's `HPACKDecoder` decodes, with the same limits (a 4,096-byte dynamic table,
/// the most this simulator allows since it never sends SETTINGS_HEADER_TABLE_SIZE; a header list of at most
/// `maxHeaderListSize`), and refuses what it refuses; `Tests/SimulatorTests` checks that against NIOHPACK on
/// random blocks. What it saves is NIOHPACK's per-nibble Huffman decoding (see `HuffmanStringDecoder`) and its
/// `HPACKHeaders` building. The static table is read from NIOHPACK at start-up, not transcribed.
struct HeaderBlockDecoder {
    private struct Entry {
        var name: String
        var value: String
        /// RFC 7541 §4.1: "the sum of its name's length in octets ..., its value's length in octets, and 32".
        var size: Int { self.name.utf8.count + self.value.utf8.count + 32 }
    }

    /// RFC 7541 Appendix A's entries, index 1 first, as NIOHPACK decodes them.
    private static let staticTable: [(name: String, value: String)] = {
        var table: [(name: String, value: String)] = []
        while table.count < 127 {  // one byte of index; the table ends where NIOHPACK's does
            var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
            var block = ByteBuffer(bytes: [0x80 | UInt8(table.count + 1)])
            guard let headers = try? decoder.decodeHeaders(from: &block), let field = headers.first else { break }
            table.append((field.name, field.value))
        }
        return table
    }()

    /// The protocol's limit: RFC 9113's default SETTINGS_HEADER_TABLE_SIZE, which the simulator never changes.
    static let maxTableSize = HPACKDecoder.maxDynamicTableSize

    let maxHeaderListSize: Int
    /// Newest first: the entry at HPACK index `staticTable.count + 1` is `entries.first`.
    private var entries = CircularBuffer<Entry>()
    private var tableSize = 0
    /// The size the encoder last chose (RFC 7541 §6.3), at most `maxTableSize`.
    private var capacity = HeaderBlockDecoder.maxTableSize
    private var memo = HPACKByteReader.Memo()

    init(maxHeaderListSize: Int) {
        self.maxHeaderListSize = maxHeaderListSize
    }

    /// The fields of one whole header block; a block it cannot read is a connection error (COMPRESSION_ERROR).
    mutating func decode(_ block: ByteBuffer) throws(HTTP2ConnectionError) -> [(name: String, value: String)] {
        do {
            return try block.withUnsafeReadableBytes { bytes throws(HeaderBlockDecodingError) in
                // Moved into the reader and back, so that its bytes are not copied on write.
                var reader = HPACKByteReader(bytes: bytes, memo: self.memo)
                self.memo = HPACKByteReader.Memo()
                defer { self.memo = reader.memo }
                return try self.decode(&reader)
            }
        } catch {
            throw HTTP2ConnectionError(code: .compressionError, "header block: \(error.reason)")
        }
    }

    private mutating func decode(_ reader: inout HPACKByteReader) throws(HeaderBlockDecodingError)
        -> [(name: String, value: String)]
    {
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(12)
        var listSize = 0
        var sizeUpdates = 0
        while let first = reader.peek() {
            let name: String
            let value: String
            if first & 0x80 != 0 {  // indexed field
                let index = try reader.integer(prefix: 7)
                guard index != 0 else { throw .init("index 0") }
                (name, value) = try self.field(at: index)
            } else if first & 0xe0 == 0x20 {  // dynamic table size update
                // RFC 7541 §4.2: "This dynamic table size update MUST occur at the beginning of the first header
                // block following the change", "at most two dynamic table size updates"; §6.3: "The new maximum
                // size MUST be lower than or equal to the limit determined by the protocol".
                guard fields.isEmpty else { throw .init("table size update after a field") }
                sizeUpdates += 1
                guard sizeUpdates <= 2 else { throw .init("more than two table size updates") }
                let size = try reader.integer(prefix: 5)
                guard size <= Self.maxTableSize else { throw .init("table size \(size) above \(Self.maxTableSize)") }
                self.capacity = size
                self.evict(toFit: 0)
                continue
            } else {
                // A literal: with incremental indexing (01), without (0000) or never indexed (0001).
                let indexing = first & 0xc0 == 0x40
                guard indexing || first & 0xe0 == 0 else { throw .init("unknown representation \(first)") }
                let nameIndex = try reader.integer(prefix: indexing ? 6 : 4)
                if nameIndex == 0 {
                    name = try reader.string()
                    guard !name.isEmpty else { throw .init("empty literal name") }
                } else {
                    name = try self.field(at: nameIndex).name
                }
                value = try reader.string()
                if indexing { self.insert(Entry(name: name, value: value)) }
            }
            listSize += name.utf8.count + value.utf8.count + 32
            guard listSize <= self.maxHeaderListSize else { throw .init("header list above \(self.maxHeaderListSize)") }
            fields.append((name, value))
        }
        return fields
    }

    private func field(at index: Int) throws(HeaderBlockDecodingError) -> (name: String, value: String) {
        if index <= Self.staticTable.count { return Self.staticTable[index - 1] }
        let position = index - Self.staticTable.count - 1
        guard position < self.entries.count else { throw .init("index \(index) beyond the table") }
        let entry = self.entries[self.entries.index(self.entries.startIndex, offsetBy: position)]
        return (entry.name, entry.value)
    }

    /// RFC 7541 §4.4: "Before a new entry is added ..., entries are evicted from the end of the dynamic table until
    /// the size of the dynamic table is less than or equal to (maximum size - new entry size) or until the table
    /// is empty. If the size of the new entry is less than or equal to the maximum size, that entry is added".
    private mutating func insert(_ entry: Entry) {
        let size = entry.size
        self.evict(toFit: size)
        guard size <= self.capacity else { return }
        self.entries.prepend(entry)
        self.tableSize += size
    }

    private mutating func evict(toFit size: Int) {
        while self.tableSize + size > self.capacity, let oldest = self.entries.popLast() {
            self.tableSize -= oldest.size
        }
    }
}
