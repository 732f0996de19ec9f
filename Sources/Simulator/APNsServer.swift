import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Shared

/// One client connection of the simulator: stream counts, authentication, GOAWAY. Lives on its event loop.
final class SimConnection {
    let state: SimulatorState
    let channel: any Channel
    var authenticated = false
    var openStreams = 0
    var streamsSeen = 0
    var goingAway = false
    /// The highest stream id this connection has begun to process: GOAWAY names it as the last processed.
    var lastStreamID = HTTP2StreamID(0)
    /// Bodies already validated on this connection: a push shares one body across many requests.
    var validatedBodies: [ByteBuffer: Bool] = [:]

    init(state: SimulatorState, channel: any Channel) {
        self.state = state
        self.channel = channel
    }

    func streamOpened() {
        self.openStreams += 1
        self.streamsSeen += 1
        self.state.streamsInFlight(self.openStreams)
    }

    func streamClosed() {
        self.openStreams -= 1
        if self.goingAway && self.openStreams == 0 { self.closeSoon() }
    }

    /// After a GOAWAY, once every stream up to its last id is answered. Streams the client opened after it are
    /// ignored, as HTTP/2 says: the client learns they were not processed when the connection closes (or after the
    /// grace period, when none was open as the GOAWAY went out).
    private func closeSoon() {
        // A stream closes as its last frame is written, before the connection flushes it: close a moment later.
        self.channel.eventLoop.scheduleTask(in: .milliseconds(50)) { [channel] in channel.close(promise: nil) }
    }

    /// APNs raises the stream limit once a request with a valid provider token has been seen.
    func markAuthenticated(maxStreams: Int) {
        guard !self.authenticated else { return }
        self.authenticated = true
        let settings = HTTP2Frame(
            streamID: .rootStream,
            payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: maxStreams)])))
        self.channel.writeAndFlush(settings, promise: nil)
    }

    func goAway(lastStreamID: HTTP2StreamID) {
        guard !self.goingAway else { return }
        self.goingAway = true
        let frame = HTTP2Frame(
            streamID: .rootStream,
            payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: ByteBuffer(string: #"{"reason":"Shutdown"}"#)))
        self.channel.writeAndFlush(frame, promise: nil)
        // Close once the streams up to lastStreamID are answered, or after a grace period regardless.
        self.channel.eventLoop.scheduleTask(in: .seconds(5)) { [channel] in channel.close(promise: nil) }
    }
}

/// Counts open connections.
final class SimConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    let state: SimulatorState

    init(state: SimulatorState) {
        self.state = state
    }

    func channelActive(context: ChannelHandlerContext) {
        self.state.connectionOpened()
        context.fireChannelActive()
        // A connection-level receive window far larger than any burst. NIO's HTTP/2 server returns credit for the
        // DATA its streams read, but not for DATA of streams it ignores after our GOAWAY: with the default 64 KiB,
        // a GOAWAY among 1,000 streams in flight used the window up on ignored bodies, and the bodies of streams we
        // still had to answer never came (the test with 1,000 streams failed on most runs without this).
        let update = HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: 1 << 30))
        context.writeAndFlush(NIOAny(update), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
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
}

/// One request stream: collect HEADERS and DATA, validate as APNs does, answer (after the configured latency).
final class SimStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    let connection: SimConnection
    let validator: RequestValidator
    var headers: [String: String] = [:]
    var method: String?
    var path: String?
    var body = ByteBuffer()
    var active = false

    init(connection: SimConnection, validator: RequestValidator) {
        self.connection = connection
        self.validator = validator
    }

    func channelActive(context: ChannelHandlerContext) {
        self.active = true
        self.connection.streamOpened()
        let knobs = self.connection.state.currentKnobs
        if let id = try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID) {
            self.connection.lastStreamID = max(self.connection.lastStreamID, id)
        }
        if knobs.goawayAfterStreams > 0, self.connection.streamsSeen >= knobs.goawayAfterStreams {
            // Every stream seen so far is processed and answered; later ones are refused by the GOAWAY.
            // Sent on the next tick, not from inside the HTTP/2 handler's read loop.
            let connection = self.connection
            context.eventLoop.assumeIsolated().execute { connection.goAway(lastStreamID: connection.lastStreamID) }
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if self.active {
            self.active = false
            self.connection.streamClosed()
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .headers(let frame):
            for (name, value, _) in frame.headers {
                switch name {
                case ":method": self.method = value
                case ":path": self.path = value
                default: self.headers[name] = value
                }
            }
            if frame.endStream { self.complete(context: context) }
        case .data(let frame):
            if case .byteBuffer(var chunk) = frame.data { self.body.writeBuffer(&chunk) }
            if frame.endStream { self.complete(context: context) }
        default:
            break
        }
    }

    private func complete(context: ChannelHandlerContext) {
        let state = self.connection.state
        let knobs = state.currentKnobs
        let connection = self.connection
        let body = self.body
        let result = self.validator.validate(
            method: self.method, path: self.path, headers: self.headers, bodySize: body.readableBytes
        ) { liveActivity in
            if let known = connection.validatedBodies[body] { return known }
            let valid = RequestValidator.isValidPayload(Array(body.readableBytesView), liveActivity: liveActivity)
            if connection.validatedBodies.count > 64 { connection.validatedBodies.removeAll() }
            connection.validatedBodies[body] = valid
            return valid
        }
        if result.authenticated { connection.markAuthenticated(maxStreams: knobs.maxConcurrentStreams) }
        var verdict = result.verdict
        let lowerToken = result.token?.lowercased()
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
        let apnsID = self.headers["apns-id"] ?? UUID().uuidString.lowercased()
        switch verdict {
        case .accept:
            let record =
                knobs.record
                ? RecordedNotification(
                    headers: self.headers, body: Data(body.readableBytesView), receivedAt: Date().timeIntervalSince1970)
                : nil
            state.accepted(token: lowerToken ?? "", record: record)
        case .reject(let reason):
            state.rejected(token: lowerToken, reason: reason.name)
        }
        if knobs.latencyMs > 0 {
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(knobs.latencyMs))) {
                self.respond(context: context, verdict: verdict, apnsID: apnsID)
            }
        } else {
            self.respond(context: context, verdict: verdict, apnsID: apnsID)
        }
    }

    private func respond(context: ChannelHandlerContext, verdict: RequestValidator.Verdict, apnsID: String) {
        guard self.active else { return }
        switch verdict {
        case .accept:
            var headers = HPACKHeaders()
            headers.add(name: ":status", value: "200")
            headers.add(name: "apns-id", value: apnsID, indexing: .nonIndexable)
            context.writeAndFlush(self.wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: nil)
        case .reject(let reason):
            var json = #"{"reason":"\#(reason.name)""#
            if reason.status == 410 { json += #","timestamp":\#(Int64(Date().timeIntervalSince1970 * 1000))"# }
            json += "}"
            let headers: HPACKHeaders = [
                ":status": "\(reason.status)", "apns-id": apnsID, "content-type": "application/json",
                "content-length": "\(json.utf8.count)",
            ]
            context.write(self.wrapOutboundOut(.headers(.init(headers: headers, endStream: false))), promise: nil)
            context.writeAndFlush(
                self.wrapOutboundOut(.data(.init(data: .byteBuffer(ByteBuffer(string: json)), endStream: true))),
                promise: nil)
        }
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
                    let connection = NIOLoopBound(SimConnection(state: state, channel: channel), eventLoop: channel.eventLoop)
                    var configuration = NIOHTTP2Handler.ConnectionConfiguration()
                    configuration.initialSettings = [
                        HTTP2Setting(parameter: .maxConcurrentStreams, value: 1),
                        HTTP2Setting(parameter: .initialWindowSize, value: 1 << 20),
                        HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
                    ]
                    _ = try sync.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: configuration, streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(
                                SimStreamHandler(connection: connection.value, validator: validator))
                        }
                    }
                    try sync.addHandler(SimConnectionHandler(state: state))
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}
