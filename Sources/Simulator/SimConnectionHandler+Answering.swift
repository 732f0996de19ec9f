import APNsTransport
import Foundation
import NIOCore

/// The simulator's side of a request: validated as APNs would, counted, answered (after the latency knob, or
/// never when stalled), and the connection's stream limit and GOAWAY handled.
extension SimConnectionHandler {
    /// A new stream: counted in flight; the GOAWAY knob is checked against the streams seen so far.
    func opened(_ streamID: Int) {
        self.open.insert(streamID)
        self.streamsSeen += 1
        self.state.streamsInFlight(self.open.count)
        self.lastStreamID = streamID
        let goawayAfter = self.knobs.goawayAfterStreams
        if goawayAfter > 0, self.streamsSeen >= goawayAfter {
            // Every stream seen so far is processed and answered; later ones, even in this read burst, are ignored.
            self.goAway()
        }
        let dropAfter = self.knobs.dropAfterStreams
        if dropAfter > 0, self.streamsSeen >= dropAfter {
            // Nothing more is read, answered or written on this connection.
            self.context?.close(promise: nil)
        }
    }

    /// The stream is answered (its last frame written) or reset by the client.
    func streamEnded(_ streamID: Int) {
        guard self.open.remove(streamID) != nil else { return }
        self.streamWindowBonus[streamID] = nil
        if self.goAwayLastStreamID != nil && self.open.isEmpty { self.closeSoon() }
    }

    func complete(_ request: Partial, streamID: Int) {
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
                knobs.record || (!knobs.recordTokens.isEmpty && knobs.recordTokens.contains(lowerToken ?? ""))
                ? RecordedNotification(
                    headers: request.head.headers, body: Data(body.readableBytesView),
                    receivedAt: Date().timeIntervalSince1970)
                : nil
            self.state.accepted(token: lowerToken ?? "", countToken: knobs.countTokens, record: record)
        case .reject(let reason):
            self.state.rejected(token: knobs.countTokens ? lowerToken : nil, reason: reason.name)
        }
        if knobs.latencyMs > 0 {
            self.delayed.append(
                DelayedAnswer(
                    due: .now() + .milliseconds(Int64(knobs.latencyMs)), streamID: streamID, verdict: verdict,
                    apnsID: apnsID))
            self.setAnswerTimer()
        } else {
            self.respond(streamID: streamID, verdict: verdict, apnsID: apnsID)
        }
    }

    /// An answer held back by the latency knob.
    struct DelayedAnswer {
        var due: NIODeadline
        var streamID: Int
        var verdict: RequestValidator.Verdict
        var apnsID: String
    }

    /// One timer per connection, for the first answer due: every answer due by the time it fires goes out in one
    /// write. A timer and a flush per answer cost the simulator more CPU at a 30 ms round trip than the requests
    /// themselves.
    private func setAnswerTimer() {
        guard !self.answerTimerSet, let first = self.delayed.first, let context = self.context else { return }
        self.answerTimerSet = true
        context.eventLoop.assumeIsolated().scheduleTask(deadline: first.due) {
            self.answerTimerSet = false
            let now = NIODeadline.now()
            while let next = self.delayed.first, next.due <= now {
                self.delayed.removeFirst()
                self.respond(streamID: next.streamID, verdict: next.verdict, apnsID: next.apnsID)
            }
            self.flush()
            self.setAnswerTimer()
        }
    }

    private func respond(streamID: Int, verdict: RequestValidator.Verdict, apnsID: String) {
        guard self.open.contains(streamID) else { return }  // reset by the client, or the connection is gone
        switch verdict {
        case .accept:
            self.writeHeaders(streamID: streamID, status: 200, apnsID: apnsID, jsonLength: nil)
            self.streamEnded(streamID)
        case .reject(let reason):
            var json = #"{"reason":"\#(reason.name)""#
            if reason.status == 410 { json += #","timestamp":\#(Int64(Date().timeIntervalSince1970 * 1000))"# }
            json += "}"
            let body = ByteBuffer(string: json)
            self.writeHeaders(streamID: streamID, status: reason.status, apnsID: apnsID, jsonLength: body.readableBytes)
            self.blocked.append((streamID, body))
            self.writeBlocked()
        }
    }

    /// `:status`, `apns-id` and, for an error, its JSON body's type and length; nothing enters HPACK's table.
    private func writeHeaders(streamID: Int, status: Int, apnsID: String, jsonLength: Int?) {
        let headerAt = self.out.writerIndex
        HTTP2Wire.writeFrameHeader(length: 0, type: .headers, streamID: streamID, into: &self.out)
        let blockAt = self.out.writerIndex
        if self.tableSizeUpdatePending {
            self.tableSizeUpdatePending = false
            self.out.writeInteger(UInt8(0x20))  // dynamic table size update: 0
        }
        switch status {
        case 200: self.out.writeInteger(UInt8(0x88))  // static 8
        case 400: self.out.writeInteger(UInt8(0x8C))  // static 12
        case 500: self.out.writeInteger(UInt8(0x8E))  // static 14
        default:
            self.out.writeInteger(UInt8(0x08))  // literal without indexing, name :status (static 8)
            HPACKPrimitives.writeString(String(status), &self.out)
        }
        self.out.writeInteger(UInt8(0x00))  // literal without indexing, new name
        self.out.writeStaticString("\u{07}apns-id")
        HPACKPrimitives.writeString(apnsID, &self.out)
        if let jsonLength {
            HPACKPrimitives.writeInteger(31, prefix: 4, flags: 0, &self.out)  // content-type (static 31)
            HPACKPrimitives.writeString("application/json", &self.out)
            HPACKPrimitives.writeInteger(28, prefix: 4, flags: 0, &self.out)  // content-length (static 28)
            HPACKPrimitives.writeString(String(jsonLength), &self.out)
        }
        let length = self.out.writerIndex - blockAt
        self.out.setInteger(UInt8(truncatingIfNeeded: length >> 16), at: headerAt)
        self.out.setInteger(UInt16(truncatingIfNeeded: length), at: headerAt + 1)
        let flags = HTTP2Wire.Flag.endHeaders | (jsonLength == nil ? HTTP2Wire.Flag.endStream : 0)
        self.out.setInteger(flags, at: headerAt + 4)
        self.needsFlush = true
    }

    /// Error bodies go out, oldest first, as far as the client's connection and stream windows allow.
    func writeBlocked() {
        while let (streamID, body) = self.blocked.first {
            guard self.open.contains(streamID) else {
                self.blocked.removeFirst()
                continue
            }
            let size = body.readableBytes
            let streamWindow = self.peerInitialWindow + (self.streamWindowBonus[streamID] ?? 0)
            guard size <= self.connectionSendWindow, size <= streamWindow else { return }
            self.blocked.removeFirst()
            HTTP2Wire.writeFrameHeader(
                length: size, type: .data, flags: HTTP2Wire.Flag.endStream, streamID: streamID, into: &self.out)
            var body = body
            self.out.writeBuffer(&body)
            self.connectionSendWindow -= size
            self.needsFlush = true
            self.streamEnded(streamID)
        }
    }

    /// APNs raises the stream limit once a request with a valid provider token has been seen.
    private func markAuthenticated(maxStreams: Int) {
        guard !self.authenticated else { return }
        self.authenticated = true
        self.maxStreams = maxStreams
        HTTP2Wire.writeSettings([(.maxConcurrentStreams, maxStreams)], into: &self.out)
        self.needsFlush = true
    }

    private func goAway() {
        guard self.goAwayLastStreamID == nil, let context = self.context else { return }
        self.goAwayLastStreamID = self.lastStreamID
        HTTP2Wire.writeGoAway(
            lastStreamID: self.lastStreamID, code: .noError, debug: #"{"reason":"Shutdown"}"#, into: &self.out)
        self.needsFlush = true
        self.flush()
        // Close once the streams up to lastStreamID are answered, or after a grace period regardless.
        context.eventLoop.scheduleTask(in: .seconds(5)) { [channel = context.channel] in channel.close(promise: nil) }
        if self.open.isEmpty { self.closeSoon() }
    }

    /// After a GOAWAY, once every stream up to its last id is answered: the last answers are written and flushed,
    /// and the connection closes once they are on the socket. Streams the client opened after the GOAWAY are
    /// ignored, as HTTP/2 says: the client learns they were not processed from the GOAWAY's last stream id.
    private func closeSoon() {
        guard let context = self.context else { return }
        let written = context.eventLoop.makePromise(of: Void.self)
        let buffer = self.out
        self.out = context.channel.allocator.buffer(capacity: 0)
        self.needsFlush = false
        context.writeAndFlush(self.wrapOutboundOut(buffer), promise: written)
        written.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
    }
}
