import NIOCore
import NIOHPACK

/// What one HTTP/2 stream came to.
enum StreamResult {
    case response(status: Int, apnsID: String?, body: ByteBuffer?)
    /// The stream closed (reset, GOAWAY, connection loss) without a complete response.
    case closed(streamID: Int)
    /// The server reset the stream with REFUSED_STREAM: by HTTP/2's rules it did no work on it.
    case refused
}

/// Speaks HTTP/2 (RFC 9113) as an APNs client on one TLS connection, at the byte level: each request is a
/// HEADERS and a DATA frame on a new stream id, written into one buffer that goes out at the end of a burst;
/// each answer is matched back by stream id. It implements what a client that only sends requests needs (the
/// preface and SETTINGS, both directions' flow control, CONTINUATION, RST_STREAM, PING, GOAWAY) and treats
/// anything else a server may not send (PUSH_PROMISE, frames on stream 0 that belong on a stream) as the
/// connection error it is. Response header blocks are decoded with NIOHPACK; request blocks come from
/// `HPACKRequestEncoder`. Lives on the connection's event loop.
///
/// Why not NIOHTTP2's handler: measured against `nghttpd` on loopback, its per-stream state machine and frame
/// objects cost ~50 µs of CPU per request; this framing over the same NIO + TLS costs a small fraction of that
/// (README, "APNs transport").
/// State is internal, not private, only so that `APNsConnectionHandler+Reading.swift` can reach it.
final class APNsConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Event {
        /// The preface is written (TLS sends it once the handshake is done): requests may be written.
        case active
        case maxConcurrentStreams(Int)
        case goAway(lastStreamID: Int, debug: String?)
        case pingAck
        case read
        case inactive
        case error(any Error)
        case stream(requestID: Int, StreamResult)
    }

    struct Open {
        var requestID: Int
        var status: Int?
        var apnsID: String?
        var body: ByteBuffer?
        /// Request body bytes not yet sent for want of flow-control window.
        var unsent: ByteBuffer?
        var sendWindow: Int
    }

    /// The window we give each response stream (SETTINGS_INITIAL_WINDOW_SIZE): far above any APNs answer, so
    /// streams never need a WINDOW_UPDATE; the connection's window is returned in `returnCredit`.
    static let streamReceiveWindow = 1 << 20
    static let localSettings: [(HTTP2Wire.Setting, Int)] = [
        (.enablePush, 0), (.maxConcurrentStreams, 100), (.initialWindowSize, streamReceiveWindow),
    ]

    let onEvent: (Event) -> Void
    var context: ChannelHandlerContext?
    /// By stream id: the client's streams are odd, 2 apart.
    var open = IDTable<Open>(stride: 2)
    var nextStreamID = 1
    var encoder = HPACKRequestEncoder()
    var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
    var out = ByteBuffer()
    var reader = HTTP2FrameReader(maxHeaderBlockSize: 64 * 1024)
    var peerMaxFrameSize = HTTP2Wire.defaultMaxFrameSize
    var peerInitialWindow = HTTP2Wire.defaultWindowSize
    var connectionSendWindow = HTTP2Wire.defaultWindowSize
    /// Streams whose request body waits for window, in the order they were opened.
    var blocked: [Int] = []
    var needsFlush = false
    var reading = false
    /// Response bytes received since the last connection-level WINDOW_UPDATE.
    var unacknowledgedBytes = 0
    /// GOAWAY received or stream ids used up: no new streams; the connection closes once the open ones end.
    var goingAway = false
    var isActive = false

    /// `firstStreamID`: 1 on a real connection; tests start near 2³¹ to see the ids run out.
    init(firstStreamID: Int = 1, onEvent: @escaping (Event) -> Void) {
        self.nextStreamID = firstStreamID
        self.onEvent = onEvent
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.out = context.channel.allocator.buffer(capacity: 4096)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        self.isActive = true
        self.out.writeStaticString(HTTP2Wire.preface)
        HTTP2Wire.writeSettings(Self.localSettings, into: &self.out)
        self.needsFlush = true
        self.flush()
        context.fireChannelActive()
        self.onEvent(.active)
    }

    // MARK: writing

    /// Writes one request on a new stream (not flushed: call `flush()` after a burst). Returns its stream id, or
    /// nil when this connection takes no new streams.
    func send(requestID: Int, request: APNsRequest, authorization: String, authority: String) -> Int? {
        guard self.context != nil, self.isActive, !self.goingAway else { return nil }
        guard self.nextStreamID <= HTTP2Wire.maxStreamID else {
            // 2³¹ ids are used up: like a GOAWAY from ourselves, so that the slot moves to a new connection.
            self.goingAway = true
            self.onEvent(.goAway(lastStreamID: self.nextStreamID - 2, debug: "stream ids used up"))
            self.closeIfDrained()
            return nil
        }
        let streamID = self.nextStreamID
        self.nextStreamID += 2
        let body = request.body
        self.writeHeaders(
            streamID: streamID, request: request, authorization: authorization, authority: authority,
            endStream: body.readableBytes == 0)
        var stream = Open(requestID: requestID, sendWindow: self.peerInitialWindow)
        if body.readableBytes > 0 {
            stream.unsent = body
            if self.blocked.isEmpty { self.writeData(streamID: streamID, stream: &stream) }
            if stream.unsent != nil { self.blocked.append(streamID) }
        }
        self.open[streamID] = stream
        self.needsFlush = true
        return streamID
    }

    /// Flushes written frames; inside a read burst the flush waits for `channelReadComplete`.
    func flush() {
        guard self.needsFlush, !self.reading, let context = self.context else { return }
        self.needsFlush = false
        let buffer = self.out
        self.out = context.channel.allocator.buffer(capacity: max(4096, buffer.readableBytes))
        context.writeAndFlush(self.wrapOutboundOut(buffer), promise: nil)
    }

    /// Gives up on a stream (its deadline passed): RST_STREAM, and no report for it.
    func cancel(streamID: Int) {
        guard self.open.removeValue(for: streamID) != nil else { return }
        HTTP2Wire.writeRstStream(streamID: streamID, code: .cancel, into: &self.out)
        self.needsFlush = true
        self.flush()
        self.closeIfDrained()
    }

    func ping(_ data: UInt64) {
        HTTP2Wire.writePing(data, ack: false, into: &self.out)
        self.needsFlush = true
        self.flush()
    }

    private func writeHeaders(
        streamID: Int, request: APNsRequest, authorization: String, authority: String, endStream: Bool
    ) {
        let headerAt = self.out.writerIndex
        HTTP2Wire.writeFrameHeader(length: 0, type: .headers, streamID: streamID, into: &self.out)
        let blockAt = self.out.writerIndex
        self.encoder.encode(request, authorization: authorization, authority: authority, into: &self.out)
        let length = self.out.writerIndex - blockAt
        let endFlag = endStream ? HTTP2Wire.Flag.endStream : 0
        guard length > self.peerMaxFrameSize else {
            self.out.setMultipleIntegers(
                UInt8(truncatingIfNeeded: length >> 16), UInt16(truncatingIfNeeded: length),
                HTTP2Wire.FrameType.headers.rawValue, HTTP2Wire.Flag.endHeaders | endFlag, at: headerAt)
            return
        }
        // Larger than one frame: HEADERS and CONTINUATION frames of at most the peer's frame size.
        var block = self.out.getSlice(at: blockAt, length: length)!  // written just above
        self.out.moveWriterIndex(to: headerAt)
        var first = true
        while block.readableBytes > 0 {
            var part = block.readSlice(length: min(block.readableBytes, self.peerMaxFrameSize))!
            let last = block.readableBytes == 0
            HTTP2Wire.writeFrameHeader(
                length: part.readableBytes, type: first ? .headers : .continuation,
                flags: (last ? HTTP2Wire.Flag.endHeaders : 0) | (first ? endFlag : 0), streamID: streamID,
                into: &self.out)
            self.out.writeBuffer(&part)
            first = false
        }
    }

    /// Sends as much of the stream's body as both windows and the frame size allow.
    func writeData(streamID: Int, stream: inout Open) {
        while var unsent = stream.unsent {
            let size = min(unsent.readableBytes, self.connectionSendWindow, stream.sendWindow, self.peerMaxFrameSize)
            guard size > 0 else { return }
            var chunk = unsent.readSlice(length: size)!  // size <= readableBytes
            let last = unsent.readableBytes == 0
            HTTP2Wire.writeFrameHeader(
                length: size, type: .data, flags: last ? HTTP2Wire.Flag.endStream : 0, streamID: streamID,
                into: &self.out)
            self.out.writeBuffer(&chunk)
            self.connectionSendWindow -= size
            stream.sendWindow -= size
            stream.unsent = last ? nil : unsent
        }
    }

    /// After a window grew: bodies that waited go out, oldest stream first.
    func writeBlocked() {
        var index = 0
        while index < self.blocked.count, self.connectionSendWindow > 0 {
            let streamID = self.blocked[index]
            // Written out of the table and back: `writeData` writes to `self.out` too.
            guard var stream = self.open[streamID], stream.unsent != nil else {
                self.blocked.remove(at: index)
                continue
            }
            self.writeData(streamID: streamID, stream: &stream)
            self.open[streamID] = stream
            self.needsFlush = true
            if stream.unsent == nil { self.blocked.remove(at: index) } else { index += 1 }
        }
    }

}
