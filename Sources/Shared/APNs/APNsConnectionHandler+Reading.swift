import NIOCore
import NIOHPACK

/// The inbound half: frames parsed from the decrypted byte stream, answers matched to their streams, the
/// connection's control frames obeyed, and protocol violations ended with GOAWAY.
extension APNsConnectionHandler {
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = self.unwrapInboundIn(data)
        if var pending = self.inbound {
            pending.writeBuffer(&bytes)
            bytes = pending
            self.inbound = nil
        }
        self.reading = true
        self.onEvent(.read)
        do {
            while self.isActive,
                let (header, payload) = try HTTP2Wire.readFrame(
                    from: &bytes, maxFrameSize: HTTP2Wire.defaultMaxFrameSize)
            {
                try self.process(header, payload)
            }
        } catch {
            self.connectionError(error, context: context)
            return
        }
        if bytes.readableBytes > 0 { self.inbound = bytes }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.reading = false
        self.returnCredit()
        self.flush()  // requests started while handling this read go out together
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.isActive = false
        for streamID in self.open.keys.sorted() { self.closed(streamID) }
        self.onEvent(.inactive)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.onEvent(.error(error))
        context.close(promise: nil)
    }

    // MARK: frames

    private func process(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) throws(HTTP2ConnectionError) {
        if let pending = self.headerBlock, header.type != HTTP2Wire.FrameType.continuation.rawValue {
            throw HTTP2ConnectionError(code: .protocolError, "stream \(pending.streamID)'s header block interrupted")
        }
        guard let type = HTTP2Wire.FrameType(rawValue: header.type) else { return }  // unknown types are ignored
        switch type {
        case .data:
            try self.requireStream(header)
            // Flow control counts the whole frame, padding included (RFC 9113 §6.9).
            self.unacknowledgedBytes += header.length
            var data = try HTTP2Wire.unpadded(payload, header: header)
            guard var stream = self.open[header.streamID] else { return }
            if data.readableBytes > 0 {
                if stream.body == nil { stream.body = data } else { stream.body!.writeBuffer(&data) }
            }
            self.open[header.streamID] = stream
            if header.has(HTTP2Wire.Flag.endStream) { self.finish(header.streamID) }
        case .headers:
            try self.requireStream(header)
            let fragment = try HTTP2Wire.unpadded(payload, header: header, hasPriority: true)
            let endStream = header.has(HTTP2Wire.Flag.endStream)
            if header.has(HTTP2Wire.Flag.endHeaders) {
                try self.headerBlockEnded(streamID: header.streamID, block: fragment, endStream: endStream)
            } else {
                self.headerBlock = (header.streamID, fragment, endStream)
            }
        case .continuation:
            guard var pending = self.headerBlock, pending.streamID == header.streamID else {
                throw HTTP2ConnectionError(code: .protocolError, "CONTINUATION without a header block to continue")
            }
            var fragment = payload
            pending.block.writeBuffer(&fragment)
            guard pending.block.readableBytes <= 64 * 1024 else {
                throw HTTP2ConnectionError(code: .protocolError, "a response header block over 64 KiB")
            }
            if header.has(HTTP2Wire.Flag.endHeaders) {
                self.headerBlock = nil
                try self.headerBlockEnded(
                    streamID: pending.streamID, block: pending.block, endStream: pending.endStream)
            } else {
                self.headerBlock = pending
            }
        case .rstStream:
            try self.requireStream(header)
            var payload = payload
            guard header.length == 4, let code = payload.readInteger(as: UInt32.self) else {
                throw HTTP2ConnectionError(code: .frameSizeError, "RST_STREAM of \(header.length) bytes")
            }
            if code == HTTP2Wire.ErrorCode.refusedStream.rawValue,
                let stream = self.open.removeValue(forKey: header.streamID)
            {
                self.onEvent(.stream(requestID: stream.requestID, .refused))
                self.closeIfDrained()
            } else {
                self.closed(header.streamID)
            }
        case .settings:
            try self.settings(header, payload)
        case .ping:
            guard header.streamID == 0, header.length == 8 else {
                throw HTTP2ConnectionError(code: .frameSizeError, "PING of \(header.length) bytes or on a stream")
            }
            if header.has(HTTP2Wire.Flag.ack) {
                self.onEvent(.pingAck)
            } else {
                var opaque = payload
                HTTP2Wire.writeFrameHeader(
                    length: 8, type: .ping, flags: HTTP2Wire.Flag.ack, streamID: 0, into: &self.out)
                self.out.writeBuffer(&opaque)
                self.needsFlush = true
            }
        case .goAway:
            var payload = payload
            guard header.streamID == 0, let last = payload.readInteger(as: UInt32.self),
                payload.readInteger(as: UInt32.self) != nil
            else { throw HTTP2ConnectionError(code: .frameSizeError, "GOAWAY too short or on a stream") }
            self.goAway(
                lastStreamID: Int(last & 0x7FFF_FFFF), debug: payload.readableBytes > 0 ? String(buffer: payload) : nil)
        case .windowUpdate:
            var payload = payload
            guard header.length == 4, let raw = payload.readInteger(as: UInt32.self) else {
                throw HTTP2ConnectionError(code: .frameSizeError, "WINDOW_UPDATE of \(header.length) bytes")
            }
            let increment = Int(raw & 0x7FFF_FFFF)
            if header.streamID == 0 {
                guard increment > 0, self.connectionSendWindow + increment <= HTTP2Wire.maxWindowSize else {
                    throw HTTP2ConnectionError(code: .flowControlError, "connection WINDOW_UPDATE of \(increment)")
                }
                self.connectionSendWindow += increment
            } else if var stream = self.open[header.streamID] {
                stream.sendWindow = min(stream.sendWindow + increment, HTTP2Wire.maxWindowSize)
                self.open[header.streamID] = stream
            }
            self.writeBlocked()
        case .pushPromise:
            throw HTTP2ConnectionError(code: .protocolError, "PUSH_PROMISE, with push disabled")
        case .priority:
            break
        }
    }

    private func requireStream(_ header: HTTP2Wire.FrameHeader) throws(HTTP2ConnectionError) {
        guard header.streamID != 0 else {
            throw HTTP2ConnectionError(code: .protocolError, "frame type \(header.type) on stream 0")
        }
    }

    /// Every block is decoded, even for a stream we gave up on: the decoder's table must follow the server's.
    private func headerBlockEnded(streamID: Int, block: ByteBuffer, endStream: Bool) throws(HTTP2ConnectionError) {
        var block = block
        let headers: HPACKHeaders
        do {
            headers = try self.decoder.decodeHeaders(from: &block)
        } catch {
            throw HTTP2ConnectionError(code: .compressionError, "response headers: \(error)")
        }
        if var stream = self.open[streamID], stream.status == nil,
            let raw = headers.first(name: ":status"), let status = Int(raw), status >= 200
        {
            // A 1xx is interim: the final answer follows in another block. Trailers (a later block) are ignored.
            stream.status = status
            stream.apnsID = headers.first(name: "apns-id")
            self.open[streamID] = stream
        }
        if endStream { self.finish(streamID) }
    }

    private func settings(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) throws(HTTP2ConnectionError) {
        guard header.streamID == 0 else { throw HTTP2ConnectionError(code: .protocolError, "SETTINGS on a stream") }
        if header.has(HTTP2Wire.Flag.ack) { return }
        guard header.length % 6 == 0 else {
            throw HTTP2ConnectionError(code: .frameSizeError, "SETTINGS of \(header.length) bytes")
        }
        var payload = payload
        while let id = payload.readInteger(as: UInt16.self), let raw = payload.readInteger(as: UInt32.self) {
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
                for streamID in self.blocked { self.open[streamID]?.sendWindow += delta }
            case .maxFrameSize:
                guard (HTTP2Wire.defaultMaxFrameSize...16_777_215).contains(value) else {
                    throw HTTP2ConnectionError(code: .protocolError, "SETTINGS_MAX_FRAME_SIZE \(value)")
                }
                self.peerMaxFrameSize = value
            case .enablePush, .maxHeaderListSize, nil:
                break
            }
        }
        HTTP2Wire.writeFrameHeader(length: 0, type: .settings, flags: HTTP2Wire.Flag.ack, streamID: 0, into: &self.out)
        self.needsFlush = true
        self.writeBlocked()
    }

    /// Streams above `lastStreamID` were never processed: they end now, reported as closed, so that the slot
    /// (which has the last stream id from the event first) sends them again elsewhere.
    private func goAway(lastStreamID: Int, debug: String?) {
        self.goingAway = true
        self.onEvent(.goAway(lastStreamID: lastStreamID, debug: debug))
        for streamID in self.open.keys.sorted() where streamID > lastStreamID { self.closed(streamID) }
        self.closeIfDrained()
    }

    // MARK: ends

    /// Ends the connection for a protocol violation: GOAWAY with the code, and every open stream lost.
    private func connectionError(_ error: any Error, context: ChannelHandlerContext) {
        let code = (error as? HTTP2ConnectionError)?.code ?? .protocolError
        HTTP2Wire.writeFrameHeader(length: 8, type: .goAway, streamID: 0, into: &self.out)
        self.out.writeInteger(UInt32(0))
        self.out.writeInteger(code.rawValue)
        self.needsFlush = true
        self.reading = false
        self.flush()
        self.onEvent(.error(error))
        context.close(promise: nil)
    }

    /// Returns the connection's receive window at the end of a read burst, once 16 KiB have been used.
    private func returnCredit() {
        guard self.unacknowledgedBytes >= 16 * 1024 else { return }
        HTTP2Wire.writeFrameHeader(length: 4, type: .windowUpdate, streamID: 0, into: &self.out)
        self.out.writeInteger(UInt32(self.unacknowledgedBytes))
        self.unacknowledgedBytes = 0
        self.needsFlush = true
    }

    private func finish(_ streamID: Int) {
        guard let stream = self.open.removeValue(forKey: streamID) else { return }
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
        guard let stream = self.open.removeValue(forKey: streamID) else { return }
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
