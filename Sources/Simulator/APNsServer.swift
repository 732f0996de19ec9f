import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Shared

/// One client connection of the simulator, at the HTTP/2 frame level: requests are matched by stream id, with no
/// per-stream child channel or pipeline, and the answers to one read burst are flushed once. Counts streams in
/// flight, raises the stream limit once authenticated, and sends GOAWAY when the knobs say so. Lives on its event
/// loop (NIO handlers are not `Sendable`; every method runs on the channel's loop).
final class SimConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// A request still being received.
    private struct Partial {
        var head: RequestHeaderBlock
        var body = ByteBuffer()
    }

    private let state: SimulatorState
    private let validator: RequestValidator
    private var context: ChannelHandlerContext?
    private var partial: [HTTP2StreamID: Partial] = [:]
    /// Streams opened by the client and not yet closed (answered, reset or dropped with the connection).
    private var open: Set<HTTP2StreamID> = []
    private var streamsSeen = 0
    private var authenticated = false
    private var goingAway = false
    /// The highest stream id this connection has begun to process: GOAWAY names it as the last processed.
    private var lastStreamID = HTTP2StreamID(0)
    /// A body valid for one push type may not be for another (live activities need more fields).
    private struct ValidatedBody: Hashable {
        var body: ByteBuffer
        var liveActivity: Bool
    }
    /// Bodies already validated on this connection: a push shares one body across many requests.
    private var validatedBodies: [ValidatedBody: Bool] = [:]
    /// The provider token this connection presented last, once verified.
    private var verifiedToken: VerifiedProviderToken?
    private var reading = false
    private var needsFlush = false
    /// Request bytes received since the last connection-level WINDOW_UPDATE (nothing else returns that credit).
    private var unacknowledgedBytes = 0
    private var messageIDs = MessageIDGenerator()
    /// The knobs, read once per read burst (a change applies from the next burst on).
    private var burstKnobs: SimulatorKnobs?
    private var knobs: SimulatorKnobs {
        if let knobs = self.burstKnobs { return knobs }
        let knobs = self.state.currentKnobs
        self.burstKnobs = knobs
        return knobs
    }

    init(state: SimulatorState, validator: RequestValidator) {
        self.state = state
        self.validator = validator
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        self.state.connectionOpened()
        context.fireChannelActive()
        // A connection-level receive window far larger than any burst: NIO does not pass on (so nobody returns
        // credit for) the DATA of streams ignored after our GOAWAY, and with the default 64 KiB a GOAWAY among
        // 1,000 streams in flight used the window up on ignored bodies, stalling the streams still to answer.
        // (The `small_window` knob keeps the initial 64 KiB, to test clients' flow control.)
        if !self.state.currentKnobs.smallWindow {
            self.write(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: 1 << 30)))
            self.flush()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.open.removeAll()
        self.partial.removeAll()
        self.state.connectionClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Frames of a stream the client opened before it saw our GOAWAY, or of a stream already reset, concern that
        // stream only (NIO ignores or resets it): closing the connection would drop the streams we still owe.
        if error is NIOHTTP2Errors.StreamError || error is NIOHTTP2Errors.NoSuchStream
            || error is NIOHTTP2Errors.StreamClosed
        {
            return
        }
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent {
            self.partial[closed.streamID] = nil
            if self.open.remove(closed.streamID) != nil { self.streamClosed() }
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        self.reading = true
        switch frame.payload {
        case .headers(let headers):
            if let request = self.partial[frame.streamID] {  // trailers: nothing APNs reads is in them
                if headers.endStream {
                    self.partial[frame.streamID] = nil
                    self.complete(request, streamID: frame.streamID)
                }
                return
            }
            self.opened(frame.streamID)
            let request = Partial(head: RequestHeaderBlock(headers.headers))
            if request.head.violation != nil {
                self.write(HTTP2Frame(streamID: frame.streamID, payload: .rstStream(.protocolError)))
                return
            }
            if headers.endStream {
                self.partial[frame.streamID] = nil
                self.complete(request, streamID: frame.streamID)
            } else {
                self.partial[frame.streamID] = request
            }
        case .data(let data):
            self.unacknowledgedBytes += data.data.readableBytes + (data.paddingBytes.map { $0 + 1 } ?? 0)
            guard var request = self.partial.removeValue(forKey: frame.streamID) else { return }
            if case .byteBuffer(var chunk) = data.data { request.body.writeBuffer(&chunk) }
            if data.endStream {
                self.complete(request, streamID: frame.streamID)
            } else {
                self.partial[frame.streamID] = request
            }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.reading = false
        self.burstKnobs = nil
        if self.unacknowledgedBytes >= 32 * 1024 {  // half the smallest window a connection may have
            self.write(
                HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: self.unacknowledgedBytes))
            )
            self.unacknowledgedBytes = 0
        }
        self.flush()
        context.fireChannelReadComplete()
    }

    /// A new stream: counted in flight; the GOAWAY knob is checked against the streams seen so far.
    private func opened(_ streamID: HTTP2StreamID) {
        self.open.insert(streamID)
        self.streamsSeen += 1
        self.state.streamsInFlight(self.open.count)
        self.lastStreamID = max(self.lastStreamID, streamID)
        let goawayAfter = self.knobs.goawayAfterStreams
        if goawayAfter > 0, self.streamsSeen >= goawayAfter, let context = self.context {
            // Every stream seen so far is processed and answered; later ones are refused by the GOAWAY.
            // Sent on the next tick, not from inside the HTTP/2 handler's read loop.
            context.eventLoop.assumeIsolated().execute { self.goAway() }
        }
    }

    private func streamClosed() {
        if self.goingAway && self.open.isEmpty { self.closeSoon() }
    }

    // MARK: answering

    private func complete(_ request: Partial, streamID: HTTP2StreamID) {
        let knobs = self.knobs
        let body = request.body
        let result = self.validator.validate(
            request.head, bodySize: body.readableBytes, verifiedToken: &self.verifiedToken
        ) { liveActivity in
            let key = ValidatedBody(body: body, liveActivity: liveActivity)
            if let known = self.validatedBodies[key] { return known }
            let valid = RequestValidator.isValidPayload(Array(body.readableBytesView), liveActivity: liveActivity)
            if self.validatedBodies.count > 64 { self.validatedBodies.removeAll() }
            self.validatedBodies[key] = valid
            return valid
        }
        if result.authenticated { self.markAuthenticated(maxStreams: knobs.maxConcurrentStreams) }
        var verdict = result.verdict
        let lowerToken = result.token.map(RequestValidator.lowerCased(deviceToken:))
        if verdict == .accept, let lowerToken {
            if knobs.unregisteredTokens.contains(lowerToken) {
                verdict = .reject(.unregistered)
            } else {
                for (reason, rate) in knobs.failureRates where rate > 0 && Double.random(in: 0..<1) < rate {
                    verdict = .reject(APNsReason(name: reason))
                    break
                }
            }
        }
        if knobs.stall { return }
        let apnsID = request.head.apns.id ?? self.messageIDs.next()
        switch verdict {
        case .accept:
            let record =
                knobs.record
                ? RecordedNotification(
                    headers: request.head.headers, body: Data(body.readableBytesView),
                    receivedAt: Date().timeIntervalSince1970)
                : nil
            self.state.accepted(token: lowerToken ?? "", record: record)
        case .reject(let reason):
            self.state.rejected(token: lowerToken, reason: reason.name)
        }
        if knobs.latencyMs > 0, let context = self.context {
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(knobs.latencyMs))) {
                self.respond(streamID: streamID, verdict: verdict, apnsID: apnsID)
                self.flush()
            }
        } else {
            self.respond(streamID: streamID, verdict: verdict, apnsID: apnsID)
        }
    }

    private func respond(streamID: HTTP2StreamID, verdict: RequestValidator.Verdict, apnsID: String) {
        guard self.open.contains(streamID) else { return }  // reset by the client, or the connection is gone
        switch verdict {
        case .accept:
            var headers = HPACKHeaders()
            headers.add(name: ":status", value: "200")
            headers.add(name: "apns-id", value: apnsID, indexing: .nonIndexable)
            self.write(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: true))))
        case .reject(let reason):
            var json = #"{"reason":"\#(reason.name)""#
            if reason.status == 410 { json += #","timestamp":\#(Int64(Date().timeIntervalSince1970 * 1000))"# }
            json += "}"
            let headers: HPACKHeaders = [
                ":status": "\(reason.status)", "apns-id": apnsID, "content-type": "application/json",
                "content-length": "\(json.utf8.count)",
            ]
            self.write(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: false))))
            self.write(
                HTTP2Frame(
                    streamID: streamID,
                    payload: .data(.init(data: .byteBuffer(ByteBuffer(string: json)), endStream: true))))
        }
    }

    /// APNs raises the stream limit once a request with a valid provider token has been seen.
    private func markAuthenticated(maxStreams: Int) {
        guard !self.authenticated else { return }
        self.authenticated = true
        self.write(
            HTTP2Frame(
                streamID: .rootStream,
                payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: maxStreams)]))))
    }

    private func goAway() {
        guard !self.goingAway, let context = self.context else { return }
        self.goingAway = true
        self.write(
            HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(
                    lastStreamID: self.lastStreamID, errorCode: .noError,
                    opaqueData: ByteBuffer(string: #"{"reason":"Shutdown"}"#))))
        self.flush()
        // Close once the streams up to lastStreamID are answered, or after a grace period regardless.
        context.eventLoop.scheduleTask(in: .seconds(5)) { [channel = context.channel] in channel.close(promise: nil) }
        if self.open.isEmpty { self.closeSoon() }
    }

    /// After a GOAWAY, once every stream up to its last id is answered. Streams the client opened after it are
    /// ignored, as HTTP/2 says: the client learns they were not processed when the connection closes.
    private func closeSoon() {
        guard let context = self.context else { return }
        // A stream closes as its last frame is written, before that frame reaches the socket, and closing a channel
        // drops what it has not written yet. A fixed 50 ms pause was a guess at how long that takes (CI once saw 106
        // answered streams come back lost after a GOAWAY, which a slow client leaving them queued would explain).
        // A PING written behind them completes only once everything before it is on the socket.
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(
            self.wrapOutboundOut(
                HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 0), ack: false))),
            promise: written)
        self.needsFlush = false
        written.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
    }

    private func write(_ frame: HTTP2Frame) {
        guard let context = self.context else { return }
        context.write(self.wrapOutboundOut(frame), promise: nil)
        self.needsFlush = true
    }

    /// Inside a read burst the flush waits for `channelReadComplete`, so a burst's answers go out together.
    private func flush() {
        guard self.needsFlush, !self.reading, let context = self.context else { return }
        self.needsFlush = false
        context.flush()
    }
}

enum APNsServer {
    /// Binds the TLS HTTP/2 listener. New connections advertise one stream until authenticated.
    static func bind(
        host: String, port: Int, identity: TLSIdentity, state: SimulatorState,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> any Channel {
        let context = try identity.serverContext()
        let validator = RequestValidator(state: state, now: { Date() })
        return try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLServerHandler(context: context))
                    var configuration = NIOHTTP2Handler.ConnectionConfiguration()
                    configuration.headerBlockValidation = .disabled  // RequestHeaderBlock checks the same rules
                    configuration.initialSettings = [
                        HTTP2Setting(parameter: .maxConcurrentStreams, value: 1),
                        HTTP2Setting(parameter: .initialWindowSize, value: 1 << 20),
                        HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
                    ]
                    try sync.addHandler(
                        NIOHTTP2Handler(
                            mode: .server, connectionConfiguration: configuration, streamConfiguration: .init()))
                    try sync.addHandler(SimConnectionHandler(state: state, validator: validator))
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}
