import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose next request head is not complete within `timeout` of the connection opening or of
/// the previous response's end: a client that trickles its headers (or never sends them) holds a connection for
/// `timeout` at most, and an idle keep-alive connection is closed after it too. Runs on its channel's event loop.
final class RequestHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let timeout: TimeAmount
    private var heads = 0
    private var ends = 0
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.arm(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.disarm()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.disarm()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = self.unwrapInboundIn(data) {
            self.heads += 1
            self.disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = self.unwrapOutboundIn(data) {
            self.ends += 1
            if self.ends >= self.heads { self.arm(context) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext) {
        self.disarm()
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        self.deadline = context.eventLoop.scheduleTask(in: self.timeout) { bound.value.close(promise: nil) }
    }

    private func disarm() {
        self.deadline?.cancel()
        self.deadline = nil
    }
}
