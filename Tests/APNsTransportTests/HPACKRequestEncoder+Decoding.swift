import NIOCore
import NIOHPACK
import Testing

@testable import APNsTransport

/// The request encoder's blocks, read back by NIOHPACK's decoder: the oracle for what a server sees.
@Suite struct HPACKRequestEncoderTests {
    let body = ByteBuffer(string: #"{"aps":{"event":"update","timestamp":1800000000,"content-state":{}}}"#)

    func request(token: String, topic: String = "com.example.app.push-type.liveactivity") -> APNsRequest {
        APNsRequest(
            deviceToken: token, topic: topic, body: self.body, priority: .powerConsiderate,
            expiration: 1_800_000_600, apnsID: "0b9e3f2a-6c1d-4e57-9a7b-2f3c4d5e6f70")
    }

    func encode(_ request: APNsRequest, _ encoder: inout HPACKRequestEncoder, auth: String = "bearer JWT") -> ByteBuffer
    {
        var block = ByteBuffer()
        encoder.encode(request, authorization: auth, authority: "api.push.apple.com", into: &block)
        return block
    }

    @Test func aRequestDecodesToAPNsHeadersWithPerRequestValuesOutOfTheTable() throws {
        var encoder = HPACKRequestEncoder()
        var decoder = HPACKDecoder(allocator: .init())
        var first = self.encode(self.request(token: "ab12"), &encoder)
        let firstSize = first.readableBytes
        let headers = try decoder.decodeHeaders(from: &first)
        var seen: [String: (value: String, indexable: Bool)] = [:]
        for (name, value, indexing) in headers { seen[name] = (value, indexing == .indexable) }
        #expect(headers.map(\.name).prefix(3) == [":method", ":scheme", ":path"])
        #expect(seen[":method"]?.value == "POST")
        #expect(seen[":scheme"]?.value == "https")
        #expect(seen[":path"]?.value == "/3/device/ab12")
        #expect(seen[":authority"]?.value == "api.push.apple.com")
        #expect(seen["authorization"]?.value == "bearer JWT")
        #expect(seen["apns-push-type"]?.value == "liveactivity")
        #expect(seen["apns-topic"]?.value == "com.example.app.push-type.liveactivity")
        #expect(seen["apns-priority"]?.value == "5")
        #expect(seen["apns-expiration"]?.value == "1800000600")
        #expect(seen["apns-id"]?.value == "0b9e3f2a-6c1d-4e57-9a7b-2f3c4d5e6f70")
        #expect(seen["content-length"]?.value == "\(self.body.readableBytes)")
        #expect(seen["apns-collapse-id"] == nil)
        // What changes per request stays out of the dynamic table; what every request shares goes in.
        #expect(seen[":path"]?.indexable == false)
        #expect(seen["apns-id"]?.indexable == false)
        #expect(seen["apns-expiration"]?.indexable == false)
        #expect(seen["authorization"]?.indexable == true)
        #expect(seen["apns-topic"]?.indexable == true)
        #expect(encoder.tableCount == 6)

        // The next request names the shared headers by index: only the per-request values travel in full.
        var second = self.encode(self.request(token: "cd34"), &encoder)
        #expect(second.readableBytes < firstSize - 100)
        let again = try decoder.decodeHeaders(from: &second)
        #expect(again.first(name: ":path") == "/3/device/cd34")
        #expect(again.first(name: "authorization") == "bearer JWT")
        #expect(again.first(name: "apns-topic") == "com.example.app.push-type.liveactivity")
        #expect(encoder.tableCount == 6)
    }

    @Test func theTableModelStaysInStepWithTheDecoderThroughEvictions() throws {
        var encoder = HPACKRequestEncoder()
        var decoder = HPACKDecoder(allocator: .init())
        // 300 topics and 40 tokens of ~300 bytes: far more than 4,096 bytes of table, so entries are evicted and
        // indexes shift all the time. A single wrong index would decode to another topic or token.
        for n in 0..<3000 {
            let topic = "com.example.app\(n % 300).push-type.liveactivity"
            let auth = "bearer " + String(repeating: Character(String(n % 40 % 10)), count: 290) + "\(n % 40)"
            var block = self.encode(self.request(token: String(format: "%064x", n), topic: topic), &encoder, auth: auth)
            let headers = try decoder.decodeHeaders(from: &block)
            #expect(headers.first(name: "apns-topic") == topic)
            #expect(headers.first(name: "authorization") == auth)
            #expect(headers.first(name: ":path") == "/3/device/" + String(format: "%064x", n))
        }
    }

    @Test func aSmallerPeerTableIsAnnouncedAndHonoured() throws {
        var encoder = HPACKRequestEncoder()
        var decoder = HPACKDecoder(allocator: .init())
        var block = self.encode(self.request(token: "01"), &encoder)
        _ = try decoder.decodeHeaders(from: &block)
        #expect(encoder.tableCount == 6)
        // The peer shrinks its table to nothing, then allows 4,096 again before the next block: the block starts
        // with the smallest size (which empties the decoder's table) and then the new one (RFC 7541 §4.2).
        encoder.peerTableSizeChanged(to: 0)
        encoder.peerTableSizeChanged(to: 8192)
        block = self.encode(self.request(token: "02"), &encoder)
        #expect(block.getInteger(at: block.readerIndex, as: UInt8.self) == 0x20)
        var headers = try decoder.decodeHeaders(from: &block)
        #expect(headers.first(name: "authorization") == "bearer JWT")
        #expect(encoder.tableCount == 6)
        // With no table at all, nothing is indexed and every block still decodes.
        encoder.peerTableSizeChanged(to: 0)
        for token in ["03", "04"] {
            block = self.encode(self.request(token: token), &encoder)
            headers = try decoder.decodeHeaders(from: &block)
            #expect(headers.first(name: ":path") == "/3/device/" + token)
            #expect(headers.first(name: "apns-topic") == "com.example.app.push-type.liveactivity")
            #expect(encoder.tableCount == 0)
        }
    }

    /// The shared headers' bytes are reused only while the values and the table are the same: a topic that enters
    /// the table shifts every index, and the next block of the first topic must name the new indexes.
    @Test func reusedSharedBytesFollowTheTable() throws {
        var encoder = HPACKRequestEncoder()
        var decoder = HPACKDecoder(allocator: .init())
        let topics = ["com.example.a.push-type.liveactivity", "com.example.b.push-type.liveactivity"]
        let sequence = [0, 0, 0, 1, 0, 0, 1, 1, 0]
        var sizes: [Int] = []
        for (n, topicIndex) in sequence.enumerated() {
            let topic = topics[topicIndex]
            let auth = n < 7 ? "bearer JWT" : "bearer JWT2"
            var block = self.encode(self.request(token: String(format: "%064x", n), topic: topic), &encoder, auth: auth)
            sizes.append(block.readableBytes)
            let headers = try decoder.decodeHeaders(from: &block)
            #expect(headers.first(name: "apns-topic") == topic)
            #expect(headers.first(name: "authorization") == auth)
            #expect(headers.first(name: "content-length") == "\(self.body.readableBytes)")
            #expect(headers.first(name: "apns-priority") == "5")
        }
        // Repeats are all indexes: same size as each other, far smaller than the first block.
        #expect(sizes[1] == sizes[2] && sizes[1] < sizes[0] - 100)
        #expect(sizes[4] == sizes[1] && sizes[5] == sizes[1])
        // The peer empties its table between two identical requests: the second names nothing by index.
        for _ in 0..<2 {
            encoder.peerTableSizeChanged(to: 0)
            encoder.peerTableSizeChanged(to: 4096)
            var block = self.encode(self.request(token: "09", topic: topics[0]), &encoder, auth: "bearer JWT2")
            let headers = try decoder.decodeHeaders(from: &block)
            #expect(headers.first(name: "apns-topic") == topics[0])
            #expect(headers.first(name: "authorization") == "bearer JWT2")
        }
    }
}
