import NIOCore

/// Encodes the header block of an APNs request (RFC 7541) straight into a buffer.
///
/// APNs requests have one shape, so this is not a general HPACK encoder. Values that every request of a push or a
/// connection shares (`:authority`, `authorization`, `apns-topic`, `apns-push-type`, `apns-priority`,
/// `apns-collapse-id`, `content-length`) go into the dynamic table once and are then sent as a one- or two-byte
/// index. Values that change per request (`:path`, `apns-id`, `apns-expiration`) are literals that never enter
/// the table. Strings are sent raw, not Huffman-coded: it costs a few bytes and saves the per-byte coding. The shared
/// headers come as one run, so that once they are all indexes their bytes are copied as one piece.
///
/// The encoder keeps an exact model of the peer decoder's dynamic table (RFC 7541 §4: newest entry at index 62,
/// entry size = name + value + 32, oldest evicted first), so an index it sends always names what it means.
/// Pure: no I/O; unit-tested against NIOHPACK's decoder.
struct HPACKRequestEncoder {
    /// The largest table we use, whatever the peer allows: a few constant headers fit many times over.
    static let preferredTableSize = 4096

    private struct Entry {
        var name: String
        var value: String
        var size: Int
    }

    /// Oldest first; the newest (HPACK index 62) is last.
    private var entries: [Entry] = []
    private var tableSize = 0
    private(set) var tableCapacity: Int
    /// Set when the peer's SETTINGS_HEADER_TABLE_SIZE changed our capacity: the next block starts with a size
    /// update (the smallest capacity since the last block first, if it went down and up again).
    private var pendingUpdate: (smallest: Int, final: Int)?
    /// The last body length and its decimal text: a push's requests share one body, so one string serves them all.
    private var contentLength: (bytes: Int, text: String) = (-1, "")
    /// Changes whenever an entry enters or leaves the table (or the table is resized): indexes written before
    /// may name something else after.
    private var tableVersion = 0
    /// The shared headers of the last request whose block named them all by index, and those bytes.
    private var lastShared: (headers: SharedHeaders, tableVersion: Int, bytes: [UInt8])?

    /// What the requests of a push, on one connection, have in common.
    private struct SharedHeaders: Equatable {
        var authority: String
        var authorization: String
        var pushType: String
        var topic: String
        var priority: APNsPriority
        var collapseID: String?
        var contentLength: Int
    }

    init(peerTableSize: Int = 4096) {
        self.tableCapacity = min(peerTableSize, Self.preferredTableSize)
        if self.tableCapacity != 4096 { self.pendingUpdate = (self.tableCapacity, self.tableCapacity) }
    }

    /// The peer's SETTINGS_HEADER_TABLE_SIZE: the most its decoder will hold.
    mutating func peerTableSizeChanged(to size: Int) {
        let capacity = min(max(size, 0), Self.preferredTableSize)
        guard capacity != self.tableCapacity || self.pendingUpdate != nil else { return }
        self.tableCapacity = capacity
        self.tableVersion += 1
        self.evict(toFit: 0)
        let smallest = min(self.pendingUpdate?.smallest ?? capacity, capacity)
        self.pendingUpdate = (smallest, capacity)
    }

    /// Entries in the modelled dynamic table (tests).
    var tableCount: Int { self.entries.count }

    /// Writes the whole header block of `request`: the pseudo-headers, the headers the requests of a push share,
    /// then the per-request ones.
    mutating func encode(
        _ request: APNsRequest, authorization: String, authority: String, into buffer: inout ByteBuffer
    ) {
        if let update = self.pendingUpdate {
            self.pendingUpdate = nil
            if update.smallest < update.final {
                HPACKPrimitives.writeInteger(update.smallest, prefix: 5, flags: 0x20, &buffer)
            }
            HPACKPrimitives.writeInteger(update.final, prefix: 5, flags: 0x20, &buffer)
        }
        // :method POST (static 3), :scheme https (static 7), then :path, a literal without indexing (name static
        // 4). Few ByteBuffer writes: each one is an exclusivity-checked access.
        let token = request.deviceToken.utf8
        let pathLength = 10 + token.count
        if pathLength < 127 {
            buffer.writeMultipleIntegers(UInt8(0x83), UInt8(0x87), UInt8(0x04), UInt8(pathLength))
        } else {
            buffer.writeMultipleIntegers(UInt8(0x83), UInt8(0x87), UInt8(0x04))
            HPACKPrimitives.writeInteger(pathLength, prefix: 7, flags: 0, &buffer)
        }
        buffer.writeStaticString("/3/device/")
        buffer.writeBytes(token)
        let length = request.body.readableBytes
        if length != self.contentLength.bytes { self.contentLength = (length, String(length)) }
        let shared = SharedHeaders(
            authority: authority, authorization: authorization, pushType: request.pushType, topic: request.topic,
            priority: request.priority, collapseID: request.collapseID, contentLength: length)
        if let last = self.lastShared, last.tableVersion == self.tableVersion, last.headers == shared {
            buffer.writeBytes(last.bytes)
        } else {
            self.encodeShared(shared, into: &buffer)
        }
        if let expiration = request.expiration {
            Self.unindexed(name: "apns-expiration", value: String(expiration), &buffer)
        }
        if let id = request.apnsID { Self.unindexed(name: "apns-id", value: id, &buffer) }
    }

    /// The shared headers in full, each an index or a literal that enters the table. When they were all indexes
    /// (nothing entered), the bytes are kept for the next request with the same values and the same table.
    private mutating func encodeShared(_ shared: SharedHeaders, into buffer: inout ByteBuffer) {
        let start = buffer.writerIndex
        let version = self.tableVersion
        self.shared(name: ":authority", staticIndex: 1, value: shared.authority, &buffer)
        self.shared(name: "authorization", staticIndex: 23, value: shared.authorization, &buffer)
        self.shared(name: "apns-push-type", staticIndex: nil, value: shared.pushType, &buffer)
        self.shared(name: "apns-topic", staticIndex: nil, value: shared.topic, &buffer)
        self.shared(
            name: "apns-priority", staticIndex: nil, value: shared.priority == .immediate ? "10" : "5", &buffer)
        if let collapse = shared.collapseID {
            self.shared(name: "apns-collapse-id", staticIndex: nil, value: collapse, &buffer)
        }
        self.shared(name: "content-length", staticIndex: 28, value: self.contentLength.text, &buffer)
        self.lastShared =
            self.tableVersion == version
            ? (shared, version, Array(buffer.readableBytesView[start...])) : nil
    }

    // MARK: representations

    /// A header whose value repeats across requests: an index when the table has it, else a literal that enters
    /// the table (or, larger than the table, a literal that does not).
    private mutating func shared(name: String, staticIndex: Int?, value: String, _ buffer: inout ByteBuffer) {
        let count = self.entries.count
        var position = count - 1
        while position >= 0 {
            let entry = self.entries[position]
            if entry.value == value && entry.name == name {
                HPACKPrimitives.writeInteger(62 + (count - 1 - position), prefix: 7, flags: 0x80, &buffer)
                return
            }
            position -= 1
        }
        let size = name.utf8.count + value.utf8.count + 32
        guard size <= self.tableCapacity else {
            Self.literal(name: name, staticIndex: staticIndex, value: value, prefix: 4, flags: 0x00, &buffer)
            return
        }
        Self.literal(name: name, staticIndex: staticIndex, value: value, prefix: 6, flags: 0x40, &buffer)
        self.evict(toFit: size)
        self.entries.append(Entry(name: name, value: value, size: size))
        self.tableSize += size
        self.tableVersion += 1
    }

    private static func unindexed(name: StaticString, value: String, _ buffer: inout ByteBuffer) {
        // Names here are under 127 bytes: the name's length is one byte.
        buffer.writeMultipleIntegers(UInt8(0x00), UInt8(name.utf8CodeUnitCount))
        buffer.writeStaticString(name)
        HPACKPrimitives.writeString(value, &buffer)
    }

    private static func literal(
        name: String, staticIndex: Int?, value: String, prefix: Int, flags: UInt8, _ buffer: inout ByteBuffer
    ) {
        if let staticIndex {
            HPACKPrimitives.writeInteger(staticIndex, prefix: prefix, flags: flags, &buffer)
        } else {
            buffer.writeInteger(flags)
            HPACKPrimitives.writeString(name, &buffer)
        }
        HPACKPrimitives.writeString(value, &buffer)
    }

    private mutating func evict(toFit size: Int) {
        var dropped = 0
        while self.tableSize + size > self.tableCapacity, dropped < self.entries.count {
            self.tableSize -= self.entries[dropped].size
            dropped += 1
        }
        if dropped > 0 { self.entries.removeFirst(dropped) }
    }
}

/// HPACK's integer and string-literal representations (RFC 7541 §5), as the client's request encoder and the
/// simulator's answers write them.
package enum HPACKPrimitives {
    /// A string literal, not Huffman-coded (H = 0).
    package static func writeString(_ string: String, _ buffer: inout ByteBuffer) {
        let utf8 = string.utf8
        Self.writeInteger(utf8.count, prefix: 7, flags: 0, &buffer)
        buffer.writeBytes(utf8)
    }

    /// An HPACK integer with an N-bit prefix (RFC 7541 §5.1); `flags` fills the bits above the prefix.
    package static func writeInteger(_ value: Int, prefix: Int, flags: UInt8, _ buffer: inout ByteBuffer) {
        let limit = (1 << prefix) - 1
        guard value >= limit else {
            buffer.writeInteger(flags | UInt8(value))
            return
        }
        buffer.writeInteger(flags | UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            buffer.writeInteger(UInt8(rest & 0x7F | 0x80))
            rest >>= 7
        }
        buffer.writeInteger(UInt8(rest))
    }
}
