import NIOCore
import NIOHPACK
import NIOHTTP2

/// What one HTTP/2 stream came to.
enum StreamResult {
    case response(status: Int, apnsID: String?, body: ByteBuffer?)
    /// The stream closed (reset, GOAWAY, connection loss) without a complete response.
    case closed(streamID: HTTP2StreamID)
    /// The server reset the stream with REFUSED_STREAM: by HTTP/2's rules it did no work on it.
    case refused
}

/// Speaks APNs on one HTTP/2 connection at the frame level: each request is a HEADERS and a DATA frame on
/// a new stream id, each response is matched back by stream id. No per-stream channel, promise or pipeline:
/// a burst of requests is written and flushed once. Lives on the connection's event loop.
final class APNsConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    enum Event {
        /// HTTP/2 is set up (TLS done, preface sent): requests may be written.
        case active
        case maxConcurrentStreams(Int)
        case goAway(lastStreamID: HTTP2StreamID, debug: String?)
        case pingAck
        case read
        case inactive
        case error(any Error)
        case stream(requestID: Int, StreamResult)
    }

    private struct Open {
        var requestID: Int
        var status: Int?
        var apnsID: String?
        var body: ByteBuffer?
    }

    private let onEvent: (Event) -> Void
    private var context: ChannelHandlerContext?
    private var open: [HTTP2StreamID: Open] = [:]
    private var nextStreamID = HTTP2StreamID(1)
    private var needsFlush = false
    private var reading = false
    /// Response bytes received since the last connection-level WINDOW_UPDATE. Without NIO's per-stream child
    /// channels nothing else returns this credit, and a server whose answers have bodies would stall.
    private var unacknowledgedBytes = 0
    private(set) var isActive = false

    init(onEvent: @escaping (Event) -> Void) {
        self.onEvent = onEvent
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        self.isActive = true
        context.fireChannelActive()
        self.onEvent(.active)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    // MARK: writing

    /// Writes one request on a new stream (not flushed: call `flush()` after a burst). Returns its stream id.
    func send(requestID: Int, headers: HPACKHeaders, body: ByteBuffer) -> HTTP2StreamID? {
        guard let context = self.context else { return nil }
        let streamID = self.nextStreamID
        self.nextStreamID = streamID.advanced(by: 2)
        self.open[streamID] = Open(requestID: requestID)
        context.write(
            self.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers)))),
            promise: nil)
        context.write(
            self.wrapOutboundOut(
                HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(body), endStream: true)))),
            promise: nil)
        self.needsFlush = true
        return streamID
    }

    /// Flushes written requests; inside a read burst the flush waits for `channelReadComplete`.
    func flush() {
        guard self.needsFlush, !self.reading, let context = self.context else { return }
        self.needsFlush = false
        context.flush()
    }

    /// Gives up on a stream (its deadline passed): RST_STREAM, and no report for it.
    func cancel(streamID: HTTP2StreamID) {
        guard self.open.removeValue(forKey: streamID) != nil, let context = self.context else { return }
        context.writeAndFlush(
            self.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
    }

    func ping(_ data: UInt64) {
        self.context?.writeAndFlush(
            self.wrapOutboundOut(
                HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: data), ack: false))),
            promise: nil)
    }

    // MARK: reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        self.reading = true
        self.onEvent(.read)
        switch frame.payload {
        case .headers(let headers):
            guard var stream = self.open[frame.streamID] else { return }
            if let raw = headers.headers.first(name: ":status"), let status = Int(raw) {
                stream.status = status
                stream.apnsID = headers.headers.first(name: "apns-id")
            }
            self.open[frame.streamID] = stream
            if headers.endStream { self.finish(frame.streamID) }
        case .data(let data):
            self.credit(data.data.readableBytes + (data.paddingBytes.map { $0 + 1 } ?? 0))
            guard var stream = self.open[frame.streamID] else { return }
            if case .byteBuffer(var chunk) = data.data, chunk.readableBytes > 0 {
                if stream.body == nil { stream.body = chunk } else { stream.body!.writeBuffer(&chunk) }
            }
            self.open[frame.streamID] = stream
            if data.endStream { self.finish(frame.streamID) }
        case .rstStream(let code):
            if code == .refusedStream, let stream = self.open.removeValue(forKey: frame.streamID) {
                self.onEvent(.stream(requestID: stream.requestID, .refused))
            } else {
                self.closed(frame.streamID)
            }
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                self.onEvent(.maxConcurrentStreams(setting.value))
            }
        case .goAway(let lastStreamID, _, let opaqueData):
            self.onEvent(.goAway(lastStreamID: lastStreamID, debug: opaqueData.map { String(buffer: $0) }))
        case .ping(_, ack: true):
            self.onEvent(.pingAck)
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.reading = false
        self.returnCredit()
        self.flush()  // requests started while handling this read go out together
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent {
            self.closed(closed.streamID)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        for streamID in self.open.keys.sorted() { self.closed(streamID) }
        self.onEvent(.inactive)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOHTTP2Errors.StreamClosed || error is NIOHTTP2Errors.NoSuchStream { return }
        if let streamError = error as? NIOHTTP2Errors.StreamError {
            // Scoped to one stream, which NIO has reset: that stream ends; the connection and its other streams
            // carry on. Closing the connection here would lose every other stream in flight.
            self.closed(streamError.streamID)
            return
        }
        self.onEvent(.error(error))
        context.close(promise: nil)
    }

    /// Counts response bytes; the WINDOW_UPDATE goes out at the end of the read burst (`returnCredit`). Writing it
    /// from inside `channelRead` let NIO deliver the stream's close event re-entrantly, before this handler had
    /// finished the very frame that ended the stream: ~1 response in 600 came back `connectionLost`.
    private func credit(_ bytes: Int) {
        self.unacknowledgedBytes += bytes
    }

    private func returnCredit() {
        guard self.unacknowledgedBytes >= 16 * 1024, let context = self.context else { return }
        context.write(
            self.wrapOutboundOut(
                HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: self.unacknowledgedBytes))
            ),
            promise: nil)
        self.unacknowledgedBytes = 0
        self.needsFlush = true
    }

    private func finish(_ streamID: HTTP2StreamID) {
        guard let stream = self.open.removeValue(forKey: streamID) else { return }
        if let status = stream.status {
            self.onEvent(
                .stream(
                    requestID: stream.requestID, .response(status: status, apnsID: stream.apnsID, body: stream.body)))
        } else {
            self.onEvent(.stream(requestID: stream.requestID, .closed(streamID: streamID)))
        }
    }

    private func closed(_ streamID: HTTP2StreamID) {
        guard let stream = self.open.removeValue(forKey: streamID) else { return }
        self.onEvent(.stream(requestID: stream.requestID, .closed(streamID: streamID)))
    }
}
