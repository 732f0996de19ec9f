import NIOCore
import NIOHPACK

/// The inbound half: frames parsed from the decrypted byte stream, answers matched to their streams, the
/// connection's control frames obeyed, and protocol violations ended with GOAWAY.
extension APNsConnectionHandler {
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.reader.append(self.unwrapInboundIn(data))
        self.reading = true
        self.onEvent(.read)
        do {
            while self.isActive, let frame = try self.reader.next() { try self.process(frame) }
        } catch {
            self.connectionError(error, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.reading = false
        self.returnCredit()
        self.flush()  // requests started while handling this read go out together
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.isActive = false
        for streamID in self.open.ids.sorted() { self.closed(streamID) }
        self.onEvent(.inactive)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.onEvent(.error(error))
        context.close(promise: nil)
    }

    // MARK: frames

    private func process(_ frame: HTTP2FrameReader.Frame) throws(HTTP2ConnectionError) {
        switch frame {
        case .data(let streamID, var data, let flowControlled, let endStream):
            self.unacknowledgedBytes += flowControlled
            if data.readableBytes > 0 {
                self.open.update(streamID) { stream in
                    if stream.body == nil { stream.body = data } else { stream.body!.writeBuffer(&data) }
                }
            }
            if endStream { self.finish(streamID) }
        case .headers(let streamID, let block, let endStream):
            try self.headerBlockEnded(streamID: streamID, block: block, endStream: endStream)
        case .rstStream(let streamID, let code):
            if code == HTTP2Wire.ErrorCode.refusedStream.rawValue, let stream = self.open.removeValue(for: streamID) {
                self.onEvent(.stream(requestID: stream.requestID, .refused))
                self.closeIfDrained()
            } else {
                self.closed(streamID)
            }
        case .settings(let settings):
            try self.settings(settings)
        case .settingsAck:
            break
        case .ping(let opaque, let ack):
            if ack {
                self.onEvent(.pingAck)
            } else {
                HTTP2Wire.writePing(opaque, ack: true, into: &self.out)
                self.needsFlush = true
            }
        case .goAway(let lastStreamID, _, let debug):
            self.goAway(lastStreamID: lastStreamID, debug: debug)
        case .windowUpdate(let streamID, let increment):
            if streamID == 0 {
                guard self.connectionSendWindow + increment <= HTTP2Wire.maxWindowSize else {
                    throw HTTP2ConnectionError(code: .flowControlError, "connection WINDOW_UPDATE of \(increment)")
                }
                self.connectionSendWindow += increment
            } else {
                self.open.update(streamID) { $0.sendWindow = min($0.sendWindow + increment, HTTP2Wire.maxWindowSize) }
            }
            self.writeBlocked()
        }
    }

    /// Every block is decoded, even for a stream we gave up on: the decoder's table must follow the server's.
    private func headerBlockEnded(streamID: Int, block: ByteBuffer, endStream: Bool) throws(HTTP2ConnectionError) {
        let headers = try self.decoder.decodeBlock(block)
        self.open.update(streamID) { stream in
            // A 1xx is interim: the final answer follows in another block. Trailers (a later block) are ignored.
            guard stream.status == nil, let raw = headers.first(name: ":status"), let status = Int(raw), status >= 200
            else { return }
            stream.status = status
            stream.apnsID = headers.first(name: "apns-id")
        }
        if endStream { self.finish(streamID) }
    }

    private func settings(_ settings: [(id: UInt16, value: UInt32)]) throws(HTTP2ConnectionError) {
        for (id, raw) in settings {
            let value = Int(raw)
            switch HTTP2Wire.Setting(rawValue: id) {
            case .headerTableSize:
                self.encoder.peerTableSizeChanged(to: value)
            case .maxConcurrentStreams:
                self.onEvent(.maxConcurrentStreams(value))
            case .initialWindowSize:
                guard value <= HTTP2Wire.maxWindowSize else {
                    throw HTTP2ConnectionError(code: .flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE \(value)")
                }
                // Changes every open stream's window by the difference (RFC 9113 §6.9.2).
                let delta = value - self.peerInitialWindow
                self.peerInitialWindow = value
                for streamID in self.blocked { self.open.update(streamID) { $0.sendWindow += delta } }
            case .maxFrameSize:
                guard (HTTP2Wire.defaultMaxFrameSize...16_777_215).contains(value) else {
                    throw HTTP2ConnectionError(code: .protocolError, "SETTINGS_MAX_FRAME_SIZE \(value)")
                }
                self.peerMaxFrameSize = value
            case .enablePush, .maxHeaderListSize, nil:
                break
            }
        }
        HTTP2Wire.writeSettingsAck(into: &self.out)
        self.needsFlush = true
        self.writeBlocked()
    }

    /// Streams above `lastStreamID` were never processed: they end now, reported as closed, so that the slot
    /// (which has the last stream id from the event first) sends them again elsewhere.
    private func goAway(lastStreamID: Int, debug: String?) {
        self.goingAway = true
        self.onEvent(.goAway(lastStreamID: lastStreamID, debug: debug))
        for streamID in self.open.ids.sorted() where streamID > lastStreamID { self.closed(streamID) }
        self.closeIfDrained()
    }

    // MARK: ends

    /// Ends the connection for a protocol violation: GOAWAY with the code, and every open stream lost.
    private func connectionError(_ error: any Error, context: ChannelHandlerContext) {
        let code = (error as? HTTP2ConnectionError)?.code ?? .protocolError
        HTTP2Wire.writeGoAway(lastStreamID: 0, code: code, into: &self.out)
        self.needsFlush = true
        self.reading = false
        self.flush()
        self.onEvent(.error(error))
        context.close(promise: nil)
    }

    /// Returns the connection's receive window at the end of a read burst, once 16 KiB have been used.
    private func returnCredit() {
        guard self.unacknowledgedBytes >= 16 * 1024 else { return }
        HTTP2Wire.writeWindowUpdate(streamID: 0, increment: self.unacknowledgedBytes, into: &self.out)
        self.unacknowledgedBytes = 0
        self.needsFlush = true
    }

    private func finish(_ streamID: Int) {
        guard let stream = self.open.removeValue(for: streamID) else { return }
        if let status = stream.status {
            self.onEvent(
                .stream(
                    requestID: stream.requestID, .response(status: status, apnsID: stream.apnsID, body: stream.body)))
        } else {
            self.onEvent(.stream(requestID: stream.requestID, .closed(streamID: streamID)))
        }
        self.closeIfDrained()
    }

    func closed(_ streamID: Int) {
        guard let stream = self.open.removeValue(for: streamID) else { return }
        self.onEvent(.stream(requestID: stream.requestID, .closed(streamID: streamID)))
        self.closeIfDrained()
    }

    /// After GOAWAY, the connection closes once its last stream has ended.
    func closeIfDrained() {
        guard self.goingAway, self.open.isEmpty, self.isActive, let context = self.context else { return }
        self.reading = false
        self.flush()
        context.close(promise: nil)
    }
}
