import HummingbirdCore
import LiveActivitiesCore
import Logging
import NIOCore
import PostgresStore

/// An HTTP/1.1 child channel whose request handlers run on the connection's own event loop.
///
/// Hummingbird runs each connection's handler on the global concurrent pool by default: every request then crosses
/// threads four times (the loop reads it, a pool thread handles it, the PostgreSQL connection's loop runs the query,
/// the pool thread takes the answer, the loop writes the response), and on a small virtual machine each such
/// wake-up costs tens of microseconds. Here the handler prefers the loop that read the request; a PostgreSQL
/// connection on the same loop (see `GatewayConfiguration.eventLoopThreads`) serves it without a hop at all.
struct LoopBoundHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        self.inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(eventLoop: value.channel.eventLoop)) {
            await self.inner.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with each connection's handlers on its event loop.
    static func loopBoundHTTP1(configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        .init { responder in
            LoopBoundHTTPChannel(inner: HTTP1Channel(responder: responder, configuration: configuration))
        }
    }
}
