import NIOCore

/// The parts of HTTP/2's framing (RFC 9113 §4, §6) the APNs client speaks: frame headers in and out, and the
/// codes it sends or reads. Pure: no I/O. `package`: the simulator's server framing uses it too.
package enum HTTP2Wire {
    package static let preface: StaticString = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    package static let frameHeaderSize = 9
    /// SETTINGS_MAX_FRAME_SIZE's initial value, the most we accept (we never raise it) and the least a peer allows.
    package static let defaultMaxFrameSize = 16_384
    package static let defaultWindowSize = 65_535
    package static let maxWindowSize = Int(Int32.max)
    package static let maxStreamID = Int(Int32.max)

    package enum FrameType: UInt8 {
        case data = 0x0
        case headers = 0x1
        case priority = 0x2
        case rstStream = 0x3
        case settings = 0x4
        case pushPromise = 0x5
        case ping = 0x6
        case goAway = 0x7
        case windowUpdate = 0x8
        case continuation = 0x9
    }

    package enum Flag {
        package static let endStream: UInt8 = 0x1
        package static let ack: UInt8 = 0x1
        package static let endHeaders: UInt8 = 0x4
        package static let padded: UInt8 = 0x8
        package static let priority: UInt8 = 0x20
    }

    package enum Setting: UInt16 {
        case headerTableSize = 0x1
        case enablePush = 0x2
        case maxConcurrentStreams = 0x3
        case initialWindowSize = 0x4
        case maxFrameSize = 0x5
        case maxHeaderListSize = 0x6
    }

    /// Error codes (RFC 9113 §7).
    package enum ErrorCode: UInt32 {
        case noError = 0x0
        case protocolError = 0x1
        case internalError = 0x2
        case flowControlError = 0x3
        case streamClosed = 0x5
        case frameSizeError = 0x6
        case refusedStream = 0x7
        case cancel = 0x8
        case compressionError = 0x9
    }

    package struct FrameHeader: Equatable {
        package var length: Int
        /// The raw type: frames of unknown types are read and ignored, as §4.1 requires.
        package var type: UInt8
        package var flags: UInt8
        package var streamID: Int

        package init(length: Int, type: UInt8, flags: UInt8, streamID: Int) {
            self.length = length
            self.type = type
            self.flags = flags
            self.streamID = streamID
        }

        package func has(_ flag: UInt8) -> Bool { self.flags & flag != 0 }
    }

    /// The next frame's header and payload, or nil while the buffer does not hold the whole frame yet (nothing
    /// is consumed then). A length over `maxFrameSize` throws: that is a connection error.
    package static func readFrame(from buffer: inout ByteBuffer, maxFrameSize: Int) throws(HTTP2ConnectionError) -> (
        FrameHeader, ByteBuffer
    )? {
        let start = buffer.readerIndex
        guard buffer.readableBytes >= Self.frameHeaderSize,
            let high = buffer.getInteger(at: start, as: UInt8.self),
            let low = buffer.getInteger(at: start + 1, as: UInt16.self),
            let type = buffer.getInteger(at: start + 3, as: UInt8.self),
            let flags = buffer.getInteger(at: start + 4, as: UInt8.self),
            let stream = buffer.getInteger(at: start + 5, as: UInt32.self)
        else { return nil }
        let length = Int(high) << 16 | Int(low)
        guard length <= maxFrameSize else {
            throw HTTP2ConnectionError(code: .frameSizeError, "a frame of \(length) bytes (limit \(maxFrameSize))")
        }
        guard buffer.readableBytes >= Self.frameHeaderSize + length else { return nil }
        buffer.moveReaderIndex(forwardBy: Self.frameHeaderSize)
        let payload = buffer.readSlice(length: length)!  // length checked above
        return (FrameHeader(length: length, type: type, flags: flags, streamID: Int(stream & 0x7FFF_FFFF)), payload)
    }

    package static func writeFrameHeader(
        length: Int, type: FrameType, flags: UInt8 = 0, streamID: Int, into buffer: inout ByteBuffer
    ) {
        // One write, not five: each ByteBuffer write is an exclusivity-checked access.
        buffer.writeMultipleIntegers(
            UInt8(truncatingIfNeeded: length >> 16), UInt16(truncatingIfNeeded: length), type.rawValue, flags,
            UInt32(truncatingIfNeeded: streamID))
    }

    /// The payload without its padding (§6.1, §6.2), and the priority fields of HEADERS skipped (§6.2).
    package static func unpadded(
        _ payload: ByteBuffer, header: FrameHeader, hasPriority: Bool = false
    ) throws(HTTP2ConnectionError) -> ByteBuffer {
        var payload = payload
        var padding = 0
        if header.has(Flag.padded) {
            guard let length = payload.readInteger(as: UInt8.self) else {
                throw HTTP2ConnectionError(code: .frameSizeError, "a padded frame without its pad length")
            }
            padding = Int(length)
        }
        if hasPriority && header.has(Flag.priority) {
            guard payload.readableBytes >= 5 else {
                throw HTTP2ConnectionError(code: .frameSizeError, "HEADERS too short for its priority fields")
            }
            payload.moveReaderIndex(forwardBy: 5)
        }
        guard padding <= payload.readableBytes else {
            throw HTTP2ConnectionError(code: .protocolError, "padding longer than the frame")
        }
        return payload.readSlice(length: payload.readableBytes - padding)!  // bounds checked above
    }
}

/// The peer broke HTTP/2: the connection ends with GOAWAY carrying `code`.
package struct HTTP2ConnectionError: Error, CustomStringConvertible {
    package var code: HTTP2Wire.ErrorCode
    package var reason: String

    package init(code: HTTP2Wire.ErrorCode, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { "HTTP/2 \(self.code): \(self.reason)" }
}
