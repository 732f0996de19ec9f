import APNsTransport
import Foundation
import NIOCore
import NIOHPACK

/// One client connection of the simulator, speaking HTTP/2 (RFC 9113) as a server at the byte level: request
/// header blocks are decoded by `HeaderBlockDecoder`, answers are written into one buffer that goes out once per
/// read burst.
/// It enforces what APNs' HTTP/2 does for a client: the connection preface, the advertised stream limit (one
/// stream until a request carries a valid provider token; past the limit a stream is refused), flow control both
/// ways, CONTINUATION, and GOAWAY. Counts streams in flight and sends GOAWAY when the knobs say so. Lives on its
/// event loop (NIO handlers are not `Sendable`; every method runs on the channel's loop).
///
/// State is internal, not private, only so that `SimConnectionHandler+Answering.swift` can reach it.
final class SimConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A request still being received.
    struct Partial {
        var head: RequestHeaderBlock
        var body = ByteBuffer()
    }

    /// A body valid for one push type may not be for another (live activities need more fields).
    struct ValidatedBody: Hashable {
        var body: ByteBuffer
        var liveActivity: Bool
    }

    static let streamReceiveWindow = 1 << 20
    static let maxHeaderListSize = 16 * 1024

    let state: SimulatorState
    let validator: RequestValidator
    var context: ChannelHandlerContext?
    var partial: [Int: Partial] = [:]
    /// Streams opened by the client and not yet closed (answered, reset or dropped with the connection).
    var open: Set<Int> = []
    var streamsSeen = 0
    var authenticated = false
    var maxStreams = 1
    /// A SETTINGS value binds the client once it has acknowledged it (RFC 9113 §6.5.3): until the ACK of our first
    /// SETTINGS, streams are not limited (a client may open several before it has read them).
    var settingsAcknowledged = false
    /// Set once GOAWAY is sent: streams above it are ignored.
    var goAwayLastStreamID: Int?
    /// The highest stream id this connection has begun to process: GOAWAY names it as the last processed.
    var lastStreamID = 0
    /// Bodies already validated on this connection: a push shares one body across many requests.
    var validatedBodies: [ValidatedBody: Bool] = [:]
    /// The provider token this connection presented last, once verified.
    var verifiedToken: VerifiedProviderToken?
    var messageIDs = MessageIDGenerator()
    /// Answers waiting out the latency knob, in the order they fall due, and whether a timer is set for the first.
    var delayed = CircularBuffer<DelayedAnswer>()
    var answerTimerSet = false
    /// The knobs, read once per read burst (a change applies from the next burst on).
    var burstKnobs: SimulatorKnobs?
    var knobs: SimulatorKnobs {
        if let knobs = self.burstKnobs { return knobs }
        let knobs = self.state.currentKnobs
        self.burstKnobs = knobs
        return knobs
    }

    // Framing.
    var prefaceSeen = false
    /// The preface's first bytes, while fewer than its 24 have come.
    var prefaceBytes: ByteBuffer?
    var reader = HTTP2FrameReader(maxHeaderBlockSize: 2 * SimConnectionHandler.maxHeaderListSize)
    var out = ByteBuffer()
    var reading = false
    var needsFlush = false
    var decoder = HeaderBlockDecoder(maxHeaderListSize: SimConnectionHandler.maxHeaderListSize)
    /// The client lowered SETTINGS_HEADER_TABLE_SIZE: our next block says our table is empty (we never index).
    var tableSizeUpdatePending = false
    var peerInitialWindow = HTTP2Wire.defaultWindowSize
    var connectionSendWindow = HTTP2Wire.defaultWindowSize
    /// Window granted to single streams by WINDOW_UPDATE, beyond the initial one.
    var streamWindowBonus: [Int: Int] = [:]
    /// Error answers' bodies waiting for window, oldest first.
    var blocked: [(streamID: Int, body: ByteBuffer)] = []
    /// Request bytes received since the last connection-level WINDOW_UPDATE.
    var unacknowledgedBytes = 0

    init(state: SimulatorState, validator: RequestValidator) {
        self.state = state
        self.validator = validator
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.out = context.channel.allocator.buffer(capacity: 4096)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        self.state.connectionOpened()
        context.fireChannelActive()
        let settings: [(HTTP2Wire.Setting, Int)] = [
            (.maxConcurrentStreams, 1), (.initialWindowSize, Self.streamReceiveWindow),
            (.maxHeaderListSize, Self.maxHeaderListSize),
        ]
        HTTP2Wire.writeSettings(settings, into: &self.out)
        // A connection-level receive window far larger than any burst, so that bodies of streams ignored after a
        // GOAWAY never hold up the streams still to answer. (The `small_window` knob keeps the initial 64 KiB, to
        // test clients' flow control.)
        if !self.state.currentKnobs.smallWindow {
            HTTP2Wire.writeWindowUpdate(streamID: 0, increment: 1 << 30, into: &self.out)
        }
        self.needsFlush = true
        self.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.open.removeAll()
        self.partial.removeAll()
        self.state.connectionClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = self.unwrapInboundIn(data)
        self.reading = true
        do {
            if !self.prefaceSeen {
                if var held = self.prefaceBytes {
                    held.writeBuffer(&bytes)
                    bytes = held
                }
                let length = HTTP2Wire.preface.utf8CodeUnitCount
                guard bytes.readableBytes >= length else {
                    self.prefaceBytes = bytes
                    return
                }
                guard bytes.readBytes(length: length) == Array(String(describing: HTTP2Wire.preface).utf8) else {
                    throw HTTP2ConnectionError(code: .protocolError, "no HTTP/2 connection preface")
                }
                self.prefaceSeen = true
                self.prefaceBytes = nil
            }
            self.reader.append(bytes)
            while context.channel.isActive, let frame = try self.reader.next() { try self.process(frame) }
        } catch {
            self.connectionError(error)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.reading = false
        self.burstKnobs = nil
        if self.unacknowledgedBytes >= 32 * 1024 {  // half the smallest window a connection may have
            HTTP2Wire.writeWindowUpdate(streamID: 0, increment: self.unacknowledgedBytes, into: &self.out)
            self.unacknowledgedBytes = 0
            self.needsFlush = true
        }
        self.flush()
        context.fireChannelReadComplete()
    }

    private func process(_ frame: HTTP2FrameReader.Frame) throws(HTTP2ConnectionError) {
        switch frame {
        case .headers(let streamID, let block, let endStream):
            try self.headerBlockEnded(streamID: streamID, block: block, endStream: endStream)
        case .data(let streamID, var data, let flowControlled, let endStream):
            self.unacknowledgedBytes += flowControlled
            guard var request = self.partial.removeValue(forKey: streamID) else { return }
            request.body.writeBuffer(&data)
            if endStream {
                self.complete(request, streamID: streamID)
            } else {
                self.partial[streamID] = request
            }
        case .rstStream(let streamID, _):
            self.partial[streamID] = nil
            self.streamEnded(streamID)
        case .settings(let settings):
            try self.settings(settings)
        case .settingsAck:
            self.settingsAcknowledged = true
        case .ping(let opaque, let ack):
            if !ack {
                HTTP2Wire.writePing(opaque, ack: true, into: &self.out)
                self.needsFlush = true
            }
        case .windowUpdate(let streamID, let increment):
            if streamID != 0 {
                self.streamWindowBonus[streamID, default: 0] += increment
            } else {
                guard self.connectionSendWindow + increment <= HTTP2Wire.maxWindowSize else {
                    throw HTTP2ConnectionError(code: .flowControlError, "connection WINDOW_UPDATE of \(increment)")
                }
                self.connectionSendWindow += increment
            }
            self.writeBlocked()
        case .goAway:
            break  // the client closes the connection itself
        }
    }

    /// Every block is decoded, even for a stream we refuse or ignore: the decoder's table must follow the client's.
    private func headerBlockEnded(streamID: Int, block: ByteBuffer, endStream: Bool) throws(HTTP2ConnectionError) {
        let headers = try self.decoder.decode(block)
        if let request = self.partial[streamID] {  // trailers: nothing APNs reads is in them
            if endStream {
                self.partial[streamID] = nil
                self.complete(request, streamID: streamID)
            }
            return
        }
        guard streamID % 2 == 1 else { throw HTTP2ConnectionError(code: .protocolError, "even stream \(streamID)") }
        guard streamID > self.lastStreamID else {
            self.writeRstStream(streamID: streamID, code: .streamClosed)
            return
        }
        if let last = self.goAwayLastStreamID, streamID > last { return }  // after our GOAWAY: ignored
        if self.settingsAcknowledged && self.open.count >= self.maxStreams {
            self.lastStreamID = streamID
            self.writeRstStream(streamID: streamID, code: .refusedStream)
            return
        }
        self.opened(streamID)
        let request = Partial(head: RequestHeaderBlock(headers))
        if request.head.violation != nil {
            self.writeRstStream(streamID: streamID, code: .protocolError)
            self.streamEnded(streamID)
            return
        }
        if endStream {
            self.complete(request, streamID: streamID)
        } else {
            self.partial[streamID] = request
        }
    }

    private func settings(_ settings: [(id: UInt16, value: UInt32)]) throws(HTTP2ConnectionError) {
        for (id, raw) in settings {
            switch HTTP2Wire.Setting(rawValue: id) {
            case .headerTableSize:
                if Int(raw) < HPACKDecoder.maxDynamicTableSize { self.tableSizeUpdatePending = true }
            case .initialWindowSize:
                guard Int(raw) <= HTTP2Wire.maxWindowSize else {
                    throw HTTP2ConnectionError(code: .flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE \(raw)")
                }
                self.peerInitialWindow = Int(raw)
            case .maxFrameSize:
                guard (HTTP2Wire.defaultMaxFrameSize...16_777_215).contains(Int(raw)) else {
                    throw HTTP2ConnectionError(code: .protocolError, "SETTINGS_MAX_FRAME_SIZE \(raw)")
                }
            case .enablePush, .maxConcurrentStreams, .maxHeaderListSize, nil:
                break  // answers are far below any frame size; we never push
            }
        }
        HTTP2Wire.writeSettingsAck(into: &self.out)
        self.needsFlush = true
        self.writeBlocked()
    }

    /// Ends the connection for a protocol violation: GOAWAY with the code, then close.
    private func connectionError(_ error: any Error) {
        guard let context = self.context else { return }
        let code = (error as? HTTP2ConnectionError)?.code ?? .protocolError
        HTTP2Wire.writeGoAway(lastStreamID: self.lastStreamID, code: code, into: &self.out)
        self.needsFlush = true
        self.reading = false
        self.flush()
        context.close(promise: nil)
    }

    // MARK: writing

    func writeRstStream(streamID: Int, code: HTTP2Wire.ErrorCode) {
        HTTP2Wire.writeRstStream(streamID: streamID, code: code, into: &self.out)
        self.needsFlush = true
    }

    /// Inside a read burst the flush waits for `channelReadComplete`, so a burst's answers go out together.
    func flush() {
        guard self.needsFlush, !self.reading, let context = self.context else { return }
        self.needsFlush = false
        let buffer = self.out
        self.out = context.channel.allocator.buffer(capacity: max(4096, buffer.readableBytes))
        context.writeAndFlush(self.wrapOutboundOut(buffer), promise: nil)
    }
}
