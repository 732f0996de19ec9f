import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose next request head is not complete within `timeout` of the connection opening or of
/// the previous response's end: a client that trickles its headers (or never sends them) holds a connection for
/// `timeout` at most, and an idle keep-alive connection is closed after it too. Runs on its channel's event loop.
///
/// One timer a connection, not one a request: a request's head and its response's end only note the time (`since`),
/// and the timer, when it fires, closes the connection if it has waited `timeout` for a head since then, sets itself
/// again for what is left if it waits for one still, and stops while a request is in flight (the response's end sets
/// it again). Scheduling and cancelling a task per request cost 1.4% of the gateway's CPU under load
/// (docs/benchmarks.md, the registry's ceilings).
final class RequestHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let timeout: TimeAmount
    private var heads = 0
    private var ends = 0
    /// Since when the connection has waited for a request head; nil while a request is in flight.
    private var since: NIODeadline?
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.wait(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.wait(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = self.unwrapInboundIn(data) {
            self.heads += 1
            self.since = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = self.unwrapOutboundIn(data) {
            self.ends += 1
            if self.ends >= self.heads { self.wait(context) }
        }
        context.write(data, promise: promise)
    }

    /// The connection waits for a head from now on.
    private func wait(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        self.since = now
        if self.timer == nil { self.set(context, at: now + self.timeout) }
    }

    private func set(_ context: ChannelHandlerContext, at due: NIODeadline) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        self.timer = context.eventLoop.scheduleTask(deadline: due) { bound.value.0.fire(bound.value.1) }
    }

    private func fire(_ context: ChannelHandlerContext) {
        self.timer = nil
        guard let since = self.since else { return }
        let due = since + self.timeout
        if NIODeadline.now() >= due {
            context.close(promise: nil)
        } else {
            self.set(context, at: due)
        }
    }

    private func stop() {
        self.since = nil
        self.timer?.cancel()
        self.timer = nil
    }
}
