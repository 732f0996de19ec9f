import NIOCore
import NIOEmbedded
import NIOHPACK
import Testing

@testable import APNsTransport

/// A connection's 2³¹ client stream ids run out after about a billion requests; the handler must then take no new
/// stream, tell the slot as a GOAWAY would (so that the request it refused goes to a new connection), and close
/// once the streams still in flight are answered.
@Suite struct APNsConnectionHandlerStreamIDTests {
    final class Events {
        var seen: [String] = []
    }

    @Test func whenStreamIDsRunOutTheConnectionGoesAwayAndClosesOnceDrained() throws {
        let events = Events()
        let last = Int(Int32.max)
        let handler = APNsConnectionHandler(firstStreamID: last - 2) { event in
            switch event {
            case .goAway(let lastStreamID, let debug): events.seen.append("goAway \(lastStreamID) \(debug ?? "")")
            case .stream(let requestID, .response(let status, _, _)):
                events.seen.append("answer \(requestID) \(status)")
            case .stream(let requestID, let result): events.seen.append("lost \(requestID) \(result)")
            case .inactive: events.seen.append("inactive")
            default: break
            }
        }
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        let request = APNsRequest(deviceToken: "ab12", topic: "com.example.app.push-type.liveactivity", body: .init())
        #expect(handler.send(requestID: 1, request: request, authorization: "bearer x", authority: "h") == last - 2)
        #expect(handler.send(requestID: 2, request: request, authorization: "bearer x", authority: "h") == last)
        #expect(handler.send(requestID: 3, request: request, authorization: "bearer x", authority: "h") == nil)
        #expect(events.seen == ["goAway \(last) stream ids used up"])
        #expect(channel.isActive)  // two streams are still owed an answer

        var encoder = HPACKEncoder(allocator: .init())
        for streamID in [last - 2, last] {
            var block = ByteBuffer()
            try encoder.encode(headers: [":status": "200"], to: &block)
            var frame = ByteBuffer()
            HTTP2Wire.writeFrameHeader(
                length: block.readableBytes, type: .headers,
                flags: HTTP2Wire.Flag.endHeaders | HTTP2Wire.Flag.endStream, streamID: streamID, into: &frame)
            frame.writeBuffer(&block)
            try channel.writeInbound(frame)
        }
        #expect(events.seen == ["goAway \(last) stream ids used up", "answer 1 200", "answer 2 200", "inactive"])
        #expect(!channel.isActive)
    }
}
