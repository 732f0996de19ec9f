import NIOCore
import Testing

@testable import APNsTransport

@Suite struct HTTP2FrameReaderTests {
    func frame(_ type: HTTP2Wire.FrameType, flags: UInt8 = 0, stream: Int, _ payload: [UInt8]) -> [UInt8] {
        var buffer = ByteBuffer()
        HTTP2Wire.writeFrameHeader(length: payload.count, type: type, flags: flags, streamID: stream, into: &buffer)
        buffer.writeBytes(payload)
        return Array(buffer.readableBytesView)
    }

    @Test func aHeaderBlockOverContinuationFramesComesOutWholeHoweverTheBytesArrive() throws {
        let bytes =
            self.frame(.priority, stream: 3, [0, 0, 0, 0, 16])  // skipped
            + self.frame(.headers, flags: HTTP2Wire.Flag.endStream, stream: 3, [0x88, 0x01])
            + self.frame(.continuation, stream: 3, [0x02])
            + self.frame(.continuation, flags: HTTP2Wire.Flag.endHeaders, stream: 3, [0x03])
            + self.frame(.ping, stream: 0, [0, 0, 0, 0, 0, 0, 0, 9])
        for pieceSize in [1, 2, 7, 9, bytes.count] {
            var reader = HTTP2FrameReader(maxHeaderBlockSize: 1024)
            var frames: [HTTP2FrameReader.Frame] = []
            for start in stride(from: 0, to: bytes.count, by: pieceSize) {
                reader.append(ByteBuffer(bytes: bytes[start..<min(start + pieceSize, bytes.count)]))
                while let frame = try reader.next() { frames.append(frame) }
            }
            #expect(frames.count == 2, "pieces of \(pieceSize)")
            guard case .headers(3, let block, true) = frames.first else {
                Issue.record("\(frames)")
                continue
            }
            #expect(Array(block.readableBytesView) == [0x88, 0x01, 0x02, 0x03])
            guard case .ping(9, false) = frames.last else {
                Issue.record("\(frames)")
                continue
            }
        }
    }

    static func frame(_ type: HTTP2Wire.FrameType, stream: Int, _ payload: [UInt8]) -> [UInt8] {
        HTTP2FrameReaderTests().frame(type, stream: stream, payload)
    }

    static let forbidden: [(String, [UInt8])] = [
        (
            "a frame between HEADERS and its CONTINUATION",
            frame(.headers, stream: 1, [0x88]) + frame(.data, stream: 1, [])
        ),
        ("SETTINGS on a stream", frame(.settings, stream: 1, [])),
        ("PING of 4 bytes", frame(.ping, stream: 0, [0, 0, 0, 0])),
        ("DATA on stream 0", frame(.data, stream: 0, [0])),
        ("a connection WINDOW_UPDATE of 0", frame(.windowUpdate, stream: 0, [0, 0, 0, 0])),
        ("PUSH_PROMISE", frame(.pushPromise, stream: 1, [0, 0, 0, 2])),
        ("RST_STREAM of 2 bytes", frame(.rstStream, stream: 1, [0, 0])),
    ]

    @Test(arguments: forbidden)
    func aFrameAPeerMayNotSendIsAConnectionError(_ name: String, _ bytes: [UInt8]) {
        var reader = HTTP2FrameReader(maxHeaderBlockSize: 1024)
        reader.append(ByteBuffer(bytes: bytes))
        #expect(throws: HTTP2ConnectionError.self, "\(name)") {
            while try reader.next() != nil {}
        }
    }

    @Test func aHeaderBlockOverItsLimitIsAConnectionError() {
        var reader = HTTP2FrameReader(maxHeaderBlockSize: 8)
        reader.append(ByteBuffer(bytes: self.frame(.headers, stream: 1, Array(repeating: 0, count: 6))))
        reader.append(ByteBuffer(bytes: self.frame(.continuation, stream: 1, Array(repeating: 0, count: 6))))
        #expect(throws: HTTP2ConnectionError.self) { while try reader.next() != nil {} }
    }
}
