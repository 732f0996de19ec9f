import Foundation
import Hummingbird
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle

/// A running simulator: the TLS HTTP/2 APNs endpoint and the admin API. Tests start one on port 0.
public final class RunningSimulator: Sendable {
    public let state: SimulatorState
    public let identity: TLSIdentity
    public let apnsPort: Int
    public let adminPort: Int
    /// Apple's broadcast API: channel management and broadcast sends (HTTP/2, TLS, the same identity).
    public let broadcastPort: Int
    private let listener: any Channel
    /// The admin API's server in a service group of its own, so `stop` shuts it down gracefully (cancelling it
    /// made Hummingbird log errors at every normal stop).
    private let adminGroup: ServiceGroup
    private let admin: Task<Void, any Error>
    private let broadcastLoop: MultiThreadedEventLoopGroup

    private init(
        state: SimulatorState, identity: TLSIdentity, listener: any Channel, adminPort: Int, broadcastPort: Int,
        adminGroup: ServiceGroup, admin: Task<Void, any Error>, broadcastLoop: MultiThreadedEventLoopGroup
    ) {
        self.broadcastPort = broadcastPort
        self.broadcastLoop = broadcastLoop
        self.state = state
        self.identity = identity
        self.listener = listener
        self.apnsPort = listener.localAddress?.port ?? 0
        self.adminPort = adminPort
        self.adminGroup = adminGroup
        self.admin = admin
    }

    public static func start(
        host: String = "127.0.0.1", port: Int = 0, adminHost: String = "127.0.0.1", adminPort: Int = 0,
        broadcastPort: Int = 0, identity: TLSIdentity? = nil, logger: Logger = Logger(label: "apns-sim")
    ) async throws -> RunningSimulator {
        let state = SimulatorState()
        let identity = try identity ?? TLSIdentity.generate()
        let listener = try await APNsServer.bind(host: host, port: port, identity: identity, state: state)
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: AdminAPI.router(state: state),
            configuration: .init(address: .hostname(adminHost, port: adminPort), serverName: "apns-sim-admin"),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let (broadcastStream, broadcastContinuation) = AsyncStream.makeStream(of: Int.self)
        // Apple's broadcast host is another host: a thread of its own here, so that a broadcast is not queued behind
        // the reads of the fan-out connections it arrives beside (which a benchmark would count as our latency).
        let broadcastLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let broadcast = Application(
            router: BroadcastAPI.router(state: state),
            server: try .http2Upgrade(tlsConfiguration: identity.serverConfiguration),
            configuration: .init(address: .hostname(host, port: broadcastPort), serverName: "apns-sim-broadcast"),
            onServerRunning: { channel in broadcastContinuation.yield(channel.localAddress?.port ?? 0) },
            eventLoopGroupProvider: .shared(broadcastLoop),
            logger: logger
        )
        let adminGroup = ServiceGroup(
            configuration: .init(services: [.init(service: app), .init(service: broadcast)], logger: logger))
        let admin = Task {
            // A server that cannot bind (its port taken) ends the group: the waits below end with it, not never.
            defer {
                portContinuation.finish()
                broadcastContinuation.finish()
            }
            try await adminGroup.run()
        }
        var iterator = portStream.makeAsyncIterator()
        var broadcastIterator = broadcastStream.makeAsyncIterator()
        guard let bound = await iterator.next(), let broadcastBound = await broadcastIterator.next() else {
            await adminGroup.triggerGracefulShutdown()
            let ended = await admin.result
            try? await listener.close()
            try? await broadcastLoop.shutdownGracefully()
            try ended.get()
            throw SimulatorStartError(reason: "the admin or broadcast server stopped before it was listening")
        }
        return RunningSimulator(
            state: state, identity: identity, listener: listener, adminPort: bound, broadcastPort: broadcastBound,
            adminGroup: adminGroup, admin: admin, broadcastLoop: broadcastLoop)
    }

    public var trustRoots: NIOSSLTrustRoots { self.identity.trustRoots }

    public func stop() async {
        await self.adminGroup.triggerGracefulShutdown()
        _ = try? await self.admin.value
        try? await self.listener.close()
        try? await self.broadcastLoop.shutdownGracefully()
    }
}

/// The simulator as a long-running service: serves until SIGTERM/SIGINT.
public struct SimulatorService: Service {
    let host: String
    let port: Int
    let adminPort: Int
    let broadcastPort: Int
    let certificateOut: String?
    let logger: Logger

    public init(
        host: String, port: Int, adminPort: Int, broadcastPort: Int = 0, certificateOut: String?, logger: Logger
    ) {
        self.host = host
        self.port = port
        self.adminPort = adminPort
        self.broadcastPort = broadcastPort
        self.certificateOut = certificateOut
        self.logger = logger
    }

    public func run() async throws {
        let simulator = try await RunningSimulator.start(
            host: self.host, port: self.port, adminPort: self.adminPort, broadcastPort: self.broadcastPort,
            logger: self.logger)
        if let path = self.certificateOut {
            try simulator.identity.certificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
        }
        self.logger.info(
            "APNs simulator listening",
            metadata: [
                "apns": "https://\(self.host):\(simulator.apnsPort)",
                "admin": "http://127.0.0.1:\(simulator.adminPort)",
                "broadcast": "https://\(self.host):\(simulator.broadcastPort)",
            ])
        try? await gracefulShutdown()
        await simulator.stop()
    }
}
