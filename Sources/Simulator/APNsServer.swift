import APNsTransport
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

enum APNsServer {
    /// Binds the TLS HTTP/2 listener. New connections advertise one stream until authenticated.
    static func bind(
        host: String, port: Int, identity: TLSIdentity, state: SimulatorState,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> any Channel {
        let context = try identity.serverContext()
        let validator = RequestValidator(state: state, now: { Date() })
        return try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLServerHandler(context: context))
                    try sync.addHandler(SimConnectionHandler(state: state, validator: validator))
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}
