import NIOCore
import NIOHPACK

/// The inbound half of HTTP/2 framing that the client and the simulator share: whole frames out of a byte stream
/// that arrives in arbitrary pieces, header blocks reassembled across CONTINUATION frames, and each frame type's
/// shape checked (its stream, its length). What a frame means is left to the connection. Pure: no I/O.
package struct HTTP2FrameReader {
    package enum Frame {
        /// `flowControlled`: the frame's whole length, padding included, which counts against the window.
        case data(streamID: Int, data: ByteBuffer, flowControlled: Int, endStream: Bool)
        /// A whole header block (HEADERS and any CONTINUATION frames), padding and priority fields removed.
        case headers(streamID: Int, block: ByteBuffer, endStream: Bool)
        case rstStream(streamID: Int, code: UInt32)
        case settings([(id: UInt16, value: UInt32)])
        case settingsAck
        case ping(opaque: UInt64, ack: Bool)
        case goAway(lastStreamID: Int, code: UInt32, debug: String?)
        /// `streamID` 0: the connection's window.
        case windowUpdate(streamID: Int, increment: Int)
    }

    private var pending: ByteBuffer?
    private var headerBlock: (streamID: Int, block: ByteBuffer, endStream: Bool)?
    private let maxHeaderBlockSize: Int

    package init(maxHeaderBlockSize: Int) {
        self.maxHeaderBlockSize = maxHeaderBlockSize
    }

    /// Adds bytes as they came off the connection.
    package mutating func append(_ bytes: ByteBuffer) {
        if var pending = self.pending {
            var bytes = bytes
            pending.writeBuffer(&bytes)
            self.pending = pending
        } else {
            self.pending = bytes
        }
    }

    /// The next whole frame, or nil until more bytes arrive. Frames of unknown types, PRIORITY, and the pieces
    /// of a header block before its last are consumed silently. A frame a peer may not send throws: the
    /// connection must end with GOAWAY.
    package mutating func next() throws(HTTP2ConnectionError) -> Frame? {
        while var bytes = self.pending {
            guard
                let (header, payload) = try HTTP2Wire.readFrame(
                    from: &bytes, maxFrameSize: HTTP2Wire.defaultMaxFrameSize)
            else { return nil }
            self.pending = bytes.readableBytes > 0 ? bytes : nil
            if let frame = try self.frame(header, payload) { return frame }
        }
        return nil
    }

    private mutating func frame(
        _ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer
    ) throws(HTTP2ConnectionError) -> Frame? {
        if let pending = self.headerBlock, header.type != HTTP2Wire.FrameType.continuation.rawValue {
            throw HTTP2ConnectionError(code: .protocolError, "stream \(pending.streamID)'s header block interrupted")
        }
        guard let type = HTTP2Wire.FrameType(rawValue: header.type) else { return nil }  // unknown types: ignored
        let streamID = header.streamID
        switch type {
        case .data, .headers, .continuation, .rstStream, .pushPromise:
            guard streamID != 0 else {
                throw HTTP2ConnectionError(code: .protocolError, "frame type \(header.type) on stream 0")
            }
        case .settings, .ping, .goAway:
            guard streamID == 0 else {
                throw HTTP2ConnectionError(code: .protocolError, "frame type \(header.type) on a stream")
            }
        case .priority, .windowUpdate:
            break
        }
        var payload = payload
        switch type {
        case .data:
            let data = try HTTP2Wire.unpadded(payload, header: header)
            return .data(
                streamID: streamID, data: data, flowControlled: header.length,
                endStream: header.has(HTTP2Wire.Flag.endStream))
        case .headers:
            let fragment = try HTTP2Wire.unpadded(payload, header: header, hasPriority: true)
            self.headerBlock = (streamID, fragment, header.has(HTTP2Wire.Flag.endStream))
            return try self.headerBlockPiece(ended: header.has(HTTP2Wire.Flag.endHeaders))
        case .continuation:
            guard var pending = self.headerBlock, pending.streamID == streamID else {
                throw HTTP2ConnectionError(code: .protocolError, "CONTINUATION without a header block to continue")
            }
            pending.block.writeBuffer(&payload)
            self.headerBlock = pending
            return try self.headerBlockPiece(ended: header.has(HTTP2Wire.Flag.endHeaders))
        case .rstStream:
            guard header.length == 4, let code = payload.readInteger(as: UInt32.self) else {
                throw HTTP2ConnectionError(code: .frameSizeError, "RST_STREAM of \(header.length) bytes")
            }
            return .rstStream(streamID: streamID, code: code)
        case .settings:
            if header.has(HTTP2Wire.Flag.ack) { return .settingsAck }
            guard header.length % 6 == 0 else {
                throw HTTP2ConnectionError(code: .frameSizeError, "SETTINGS of \(header.length) bytes")
            }
            var settings: [(id: UInt16, value: UInt32)] = []
            while let id = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
                settings.append((id, value))
            }
            return .settings(settings)
        case .ping:
            guard header.length == 8, let opaque = payload.readInteger(as: UInt64.self) else {
                throw HTTP2ConnectionError(code: .frameSizeError, "PING of \(header.length) bytes")
            }
            return .ping(opaque: opaque, ack: header.has(HTTP2Wire.Flag.ack))
        case .goAway:
            guard let last = payload.readInteger(as: UInt32.self), let code = payload.readInteger(as: UInt32.self)
            else { throw HTTP2ConnectionError(code: .frameSizeError, "GOAWAY of \(header.length) bytes") }
            let debug = payload.readableBytes > 0 ? String(buffer: payload) : nil
            return .goAway(lastStreamID: Int(last & 0x7FFF_FFFF), code: code, debug: debug)
        case .windowUpdate:
            guard header.length == 4, let raw = payload.readInteger(as: UInt32.self) else {
                throw HTTP2ConnectionError(code: .frameSizeError, "WINDOW_UPDATE of \(header.length) bytes")
            }
            let increment = Int(raw & 0x7FFF_FFFF)
            guard increment > 0 || streamID != 0 else {
                throw HTTP2ConnectionError(code: .protocolError, "a connection WINDOW_UPDATE of 0")
            }
            return .windowUpdate(streamID: streamID, increment: increment)
        case .pushPromise:
            throw HTTP2ConnectionError(code: .protocolError, "PUSH_PROMISE, which neither end here may send")
        case .priority:
            return nil
        }
    }

    /// After a HEADERS or CONTINUATION frame: the whole block once END_HEADERS came, else nothing yet.
    private mutating func headerBlockPiece(ended: Bool) throws(HTTP2ConnectionError) -> Frame? {
        guard let pending = self.headerBlock else { return nil }
        guard pending.block.readableBytes <= self.maxHeaderBlockSize else {
            throw HTTP2ConnectionError(code: .protocolError, "a header block over \(self.maxHeaderBlockSize) bytes")
        }
        guard ended else { return nil }
        self.headerBlock = nil
        return .headers(streamID: pending.streamID, block: pending.block, endStream: pending.endStream)
    }
}

extension HTTP2Wire {
    package static func writeSettings(_ settings: [(Setting, Int)], into buffer: inout ByteBuffer) {
        Self.writeFrameHeader(length: 6 * settings.count, type: .settings, streamID: 0, into: &buffer)
        for (setting, value) in settings {
            buffer.writeInteger(setting.rawValue)
            buffer.writeInteger(UInt32(value))
        }
    }

    package static func writeSettingsAck(into buffer: inout ByteBuffer) {
        Self.writeFrameHeader(length: 0, type: .settings, flags: Flag.ack, streamID: 0, into: &buffer)
    }

    package static func writePing(_ opaque: UInt64, ack: Bool, into buffer: inout ByteBuffer) {
        Self.writeFrameHeader(length: 8, type: .ping, flags: ack ? Flag.ack : 0, streamID: 0, into: &buffer)
        buffer.writeInteger(opaque)
    }

    package static func writeWindowUpdate(streamID: Int, increment: Int, into buffer: inout ByteBuffer) {
        Self.writeFrameHeader(length: 4, type: .windowUpdate, streamID: streamID, into: &buffer)
        buffer.writeInteger(UInt32(increment))
    }

    package static func writeRstStream(streamID: Int, code: ErrorCode, into buffer: inout ByteBuffer) {
        Self.writeFrameHeader(length: 4, type: .rstStream, streamID: streamID, into: &buffer)
        buffer.writeInteger(code.rawValue)
    }

    package static func writeGoAway(
        lastStreamID: Int, code: ErrorCode, debug: String = "", into buffer: inout ByteBuffer
    ) {
        Self.writeFrameHeader(length: 8 + debug.utf8.count, type: .goAway, streamID: 0, into: &buffer)
        buffer.writeInteger(UInt32(lastStreamID))
        buffer.writeInteger(code.rawValue)
        buffer.writeString(debug)
    }
}

extension HPACKDecoder {
    /// A whole header block; a block the decoder cannot read is a connection error (COMPRESSION_ERROR).
    package mutating func decodeBlock(_ block: ByteBuffer) throws(HTTP2ConnectionError) -> HPACKHeaders {
        var block = block
        do {
            return try self.decodeHeaders(from: &block)
        } catch {
            throw HTTP2ConnectionError(code: .compressionError, "header block: \(error)")
        }
    }
}
