import NIOCore
import Testing

@testable import APNsTransport

@Suite struct HTTP2WireTests {
    func frame(type: HTTP2Wire.FrameType, flags: UInt8 = 0, streamID: Int, payload: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        HTTP2Wire.writeFrameHeader(length: payload.count, type: type, flags: flags, streamID: streamID, into: &buffer)
        buffer.writeBytes(payload)
        return buffer
    }

    @Test func aFrameIsReadOnlyOnceAllOfItHasArrived() throws {
        let whole = self.frame(type: .data, flags: HTTP2Wire.Flag.endStream, streamID: 7, payload: [1, 2, 3, 4, 5])
        for cut in 0..<whole.readableBytes {
            var part = whole.getSlice(at: 0, length: cut)!
            #expect(try HTTP2Wire.readFrame(from: &part, maxFrameSize: 16_384) == nil)
            #expect(part.readableBytes == cut)  // nothing consumed
        }
        // Two frames back to back, the reserved stream-id bit ignored.
        var two = whole
        var second = self.frame(type: .ping, streamID: 0, payload: Array(repeating: 9, count: 8))
        second.setInteger(UInt8(0x80), at: 5)
        two.writeBuffer(&second)
        let (header, payload) = try #require(try HTTP2Wire.readFrame(from: &two, maxFrameSize: 16_384))
        #expect(header == .init(length: 5, type: 0, flags: 1, streamID: 7))
        #expect(Array(payload.readableBytesView) == [1, 2, 3, 4, 5])
        let (ping, _) = try #require(try HTTP2Wire.readFrame(from: &two, maxFrameSize: 16_384))
        #expect(ping.type == HTTP2Wire.FrameType.ping.rawValue && ping.streamID == 0 && ping.length == 8)
        #expect(two.readableBytes == 0)
    }

    @Test func aFrameLargerThanWeAllowIsAConnectionError() {
        var big = self.frame(type: .data, streamID: 1, payload: Array(repeating: 0, count: 16_385))
        #expect(throws: HTTP2ConnectionError.self) { try HTTP2Wire.readFrame(from: &big, maxFrameSize: 16_384) }
    }

    @Test func paddingAndPriorityFieldsAreStripped() throws {
        // HEADERS, padded (pad length 3) with priority fields (5 bytes): block [0x88], then 3 bytes of padding.
        let flags = HTTP2Wire.Flag.padded | HTTP2Wire.Flag.priority | HTTP2Wire.Flag.endHeaders
        var buffer = self.frame(type: .headers, flags: flags, streamID: 1, payload: [3, 0, 0, 0, 0, 16, 0x88, 0, 0, 0])
        let (header, payload) = try #require(try HTTP2Wire.readFrame(from: &buffer, maxFrameSize: 16_384))
        let block = try HTTP2Wire.unpadded(payload, header: header, hasPriority: true)
        #expect(Array(block.readableBytesView) == [0x88])
        // Padding longer than the frame is a protocol error.
        var bad = self.frame(type: .data, flags: HTTP2Wire.Flag.padded, streamID: 1, payload: [9, 1, 2])
        let (badHeader, badPayload) = try #require(try HTTP2Wire.readFrame(from: &bad, maxFrameSize: 16_384))
        #expect(throws: HTTP2ConnectionError.self) { try HTTP2Wire.unpadded(badPayload, header: badHeader) }
    }
}
