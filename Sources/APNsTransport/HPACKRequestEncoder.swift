import NIOCore

/// Encodes the header block of an APNs request (RFC 7541) straight into a buffer.
///
/// APNs requests have one shape, so this is not a general HPACK encoder. Values that every request of a push or a
/// connection shares (`:authority`, `authorization`, `apns-topic`, `apns-push-type`, `apns-priority`,
/// `apns-collapse-id`, `content-length`) go into the dynamic table once and are then sent as a one- or two-byte
/// index. Values that change per request (`:path`, `apns-id`, `apns-expiration`) are literals that never enter
/// the table. Strings are sent raw, not Huffman-coded: it costs a few bytes and saves the per-byte coding.
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

    init(peerTableSize: Int = 4096) {
        self.tableCapacity = min(peerTableSize, Self.preferredTableSize)
        if self.tableCapacity != 4096 { self.pendingUpdate = (self.tableCapacity, self.tableCapacity) }
    }

    /// The peer's SETTINGS_HEADER_TABLE_SIZE: the most its decoder will hold.
    mutating func peerTableSizeChanged(to size: Int) {
        let capacity = min(max(size, 0), Self.preferredTableSize)
        guard capacity != self.tableCapacity || self.pendingUpdate != nil else { return }
        self.tableCapacity = capacity
        self.evict(toFit: 0)
        let smallest = min(self.pendingUpdate?.smallest ?? capacity, capacity)
        self.pendingUpdate = (smallest, capacity)
    }

    /// Entries in the modelled dynamic table (tests).
    var tableCount: Int { self.entries.count }

    /// Writes the whole header block of `request`, in one access to the buffer (`HPACKBlockWriter`).
    mutating func encode(
        _ request: APNsRequest, authorization: String, authority: String, into buffer: inout ByteBuffer
    ) {
        let bound = Self.bound(request, authorization: authorization, authority: authority)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { memory in
            var writer = HPACKBlockWriter(memory)
            self.encode(request, authorization: authorization, authority: authority, into: &writer)
            return writer.count
        }
    }

    /// The most bytes `encode` can write for `request`: every name and value as a literal, each with a
    /// representation byte and two integers of up to 6 bytes, and two table size updates.
    static func bound(_ request: APNsRequest, authorization: String, authority: String) -> Int {
        let names = 20 * 9  // no header name here is longer than 20 bytes, and at most 9 headers are named
        let values =
            request.deviceToken.utf8.count + 10 + authority.utf8.count + authorization.utf8.count
            + request.pushType.utf8.count + request.topic.utf8.count + 2 + 20 + (request.apnsID?.utf8.count ?? 0)
            + (request.collapseID?.utf8.count ?? 0) + 20
        return 2 * 6 + 2 + 11 * 13 + names + values
    }

    private mutating func encode(
        _ request: APNsRequest, authorization: String, authority: String, into writer: inout HPACKBlockWriter
    ) {
        if let update = self.pendingUpdate {
            self.pendingUpdate = nil
            if update.smallest < update.final { writer.integer(update.smallest, prefix: 5, flags: 0x20) }
            writer.integer(update.final, prefix: 5, flags: 0x20)
        }
        writer.byte(0x83)  // :method POST (static 3)
        writer.byte(0x87)  // :scheme https (static 7)
        // :path, literal without indexing, name static 4.
        writer.byte(0x04)
        let token = request.deviceToken.utf8
        writer.integer(10 + token.count, prefix: 7, flags: 0)
        writer.bytes("/3/device/")
        writer.bytes(token)
        self.shared(name: ":authority", staticIndex: 1, value: authority, &writer)
        self.shared(name: "authorization", staticIndex: 23, value: authorization, &writer)
        self.shared(name: "apns-push-type", staticIndex: nil, value: request.pushType, &writer)
        self.shared(name: "apns-topic", staticIndex: nil, value: request.topic, &writer)
        self.shared(
            name: "apns-priority", staticIndex: nil, value: request.priority == .immediate ? "10" : "5", &writer)
        if let expiration = request.expiration {
            Self.unindexed(name: "apns-expiration", value: String(expiration), &writer)
        }
        if let id = request.apnsID { Self.unindexed(name: "apns-id", value: id, &writer) }
        if let collapse = request.collapseID {
            self.shared(name: "apns-collapse-id", staticIndex: nil, value: collapse, &writer)
        }
        let length = request.body.readableBytes
        if length != self.contentLength.bytes { self.contentLength = (length, String(length)) }
        self.shared(name: "content-length", staticIndex: 28, value: self.contentLength.text, &writer)
    }

    // MARK: representations

    /// A header whose value repeats across requests: an index when the table has it, else a literal that enters
    /// the table (or, larger than the table, a literal that does not).
    private mutating func shared(name: String, staticIndex: Int?, value: String, _ writer: inout HPACKBlockWriter) {
        let count = self.entries.count
        var position = count - 1
        while position >= 0 {
            let entry = self.entries[position]
            if entry.value == value && entry.name == name {
                writer.integer(62 + (count - 1 - position), prefix: 7, flags: 0x80)
                return
            }
            position -= 1
        }
        let size = name.utf8.count + value.utf8.count + 32
        guard size <= self.tableCapacity else {
            Self.literal(name: name, staticIndex: staticIndex, value: value, prefix: 4, flags: 0x00, &writer)
            return
        }
        Self.literal(name: name, staticIndex: staticIndex, value: value, prefix: 6, flags: 0x40, &writer)
        self.evict(toFit: size)
        self.entries.append(Entry(name: name, value: value, size: size))
        self.tableSize += size
    }

    private static func unindexed(name: StaticString, value: String, _ writer: inout HPACKBlockWriter) {
        writer.byte(0x00)
        writer.integer(name.utf8CodeUnitCount, prefix: 7, flags: 0)
        writer.bytes(name)
        writer.string(value)
    }

    private static func literal(
        name: String, staticIndex: Int?, value: String, prefix: Int, flags: UInt8, _ writer: inout HPACKBlockWriter
    ) {
        if let staticIndex {
            writer.integer(staticIndex, prefix: prefix, flags: flags)
        } else {
            writer.byte(flags)
            writer.string(name)
        }
        writer.string(value)
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
        Self.integer(value, prefix: prefix, flags: flags) { buffer.writeInteger($0) }
    }

    /// The bytes of an HPACK integer, each handed to `emit` in order.
    @inline(__always)
    static func integer(_ value: Int, prefix: Int, flags: UInt8, _ emit: (UInt8) -> Void) {
        let limit = (1 << prefix) - 1
        guard value >= limit else {
            emit(flags | UInt8(value))
            return
        }
        emit(flags | UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            emit(UInt8(rest & 0x7F | 0x80))
            rest >>= 7
        }
        emit(UInt8(rest))
    }
}
