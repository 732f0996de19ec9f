import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// A slot's connection: made on demand, replaced after GOAWAY or loss with jittered backoff, and its events
/// (preface written, settings, GOAWAY, streams ended, closed) applied to the slot. On the slot's event loop.
extension SlotCore {
    func ensureConnection() {
        guard !self.isShutdown, self.connection == nil, self.pendingConnection == nil, !self.connecting,
            !self.reconnectScheduled, !self.gate.pending.isEmpty
        else { return }
        self.connect()
    }

    func connect() {
        self.connecting = true
        self.generation += 1
        let generation = self.generation
        let bound = NIOLoopBound(self, eventLoop: self.eventLoop)
        // The handler is not Sendable: it crosses to the completion below bound to the loop both run on.
        let handlerPromise = self.eventLoop.makePromise(of: NIOLoopBound<APNsConnectionHandler>.self)
        let tls = self.tls
        let host = self.endpoint.host
        let isIP = host.first?.isNumber == true || host.contains(":")
        ClientBootstrap(group: self.eventLoop)
            .connectTimeout(TimeAmount(self.configuration.connectTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: isIP ? nil : host))
                    let handler = APNsConnectionHandler { event in
                        bound.value.connectionEvent(event, generation: generation)
                    }
                    try sync.addHandler(handler)
                    handlerPromise.succeed(NIOLoopBound(handler, eventLoop: channel.eventLoop))
                }
            }
            .connect(host: host, port: self.endpoint.port)
            .and(handlerPromise.futureResult)
            .whenComplete { result in
                let core = bound.value
                core.connecting = false
                switch result {
                case .success(let (channel, boundHandler)):
                    let handler = boundHandler.value
                    guard !core.isShutdown else {
                        channel.close(promise: nil)
                        return
                    }
                    core.pendingConnection = Connection(channel: channel, handler: handler, generation: generation)
                    if handler.isActive { core.activate(generation: generation) }
                case .failure(let error):
                    handlerPromise.fail(error)
                    core.logger.debug("APNs connect failed", metadata: ["error": "\(error)"])
                    core.scheduleReconnect()
                }
            }
    }

    func activate(generation: Int) {
        guard let pending = self.pendingConnection, pending.generation == generation else { return }
        self.pendingConnection = nil
        self.lastReadAt = .now()
        self.pingSentAt = nil
        self.gate.connectionReplaced()
        self.meter.publish(self.gate)
        self.connection = pending
        self.logger.debug("APNs connection up", metadata: ["endpoint": "\(self.endpoint.host)"])
        self.pump()
    }

    func connectionEvent(_ event: APNsConnectionHandler.Event, generation: Int) {
        switch event {
        case .active:
            self.activate(generation: generation)
        case .read:
            if generation == self.connection?.generation {
                self.lastReadAt = .now()
                self.reconnectAttempts = 0  // TLS and HTTP/2 are up: the next loss starts the backoff over
            }
        case .pingAck:
            self.pingSentAt = nil
        case .error(let error):
            self.logger.debug("APNs connection error", metadata: ["error": "\(error)"])
        case .stream(let requestID, let result):
            self.streamEnded(id: requestID, result: result)
        case .maxConcurrentStreams(let value):
            if generation == self.connection?.generation {
                self.gate.peerSettings(maxConcurrentStreams: value)
                self.meter.publish(self.gate)
                self.pump()
            }
        case .goAway(let lastStreamID, let debug):
            // A later GOAWAY may only lower the last processed stream (RFC 9113 §6.8); never trust it to raise it,
            // or streams the server never processed would count as possibly delivered (lost, not re-sent).
            self.goAwayLastStreamID[generation] = min(lastStreamID, self.goAwayLastStreamID[generation] ?? lastStreamID)
            self.logger.debug("APNs GOAWAY", metadata: ["last_stream": "\(lastStreamID)", "debug": "\(debug ?? "")"])
            if generation == self.connection?.generation {
                // Streams up to lastStreamID finish on the old connection; new ones go to a new connection.
                self.draining[generation] = self.connection
                self.connection = nil
                self.gate.connectionReplaced()
                self.meter.publish(self.gate)
                self.ensureConnection()
            }
        case .inactive:
            self.draining[generation] = nil
            if generation == self.pendingConnection?.generation {
                self.pendingConnection = nil
                self.scheduleReconnect()
            }
            if generation == self.connection?.generation {
                self.connection = nil
                self.gate.connectionReplaced()
                self.meter.publish(self.gate)
                if !self.gate.pending.isEmpty { self.scheduleReconnect() }
            }
            // Forget GOAWAY bookkeeping once the old connection's streams can no longer report.
            self.eventLoop.scheduleTask(in: .seconds(5)) { [bound = NIOLoopBound(self, eventLoop: self.eventLoop)] in
                bound.value.goAwayLastStreamID[generation] = nil
            }
        }
    }

    func scheduleReconnect() {
        guard !self.isShutdown, !self.reconnectScheduled else { return }
        self.reconnectAttempts += 1
        // Doubling from the base up to the cap, each wait cut by up to half at random so reconnects spread out.
        let doublings = min(max(self.reconnectAttempts - 1, 0), 30)
        let delay =
            min(self.configuration.reconnectBase * (1 << doublings), self.configuration.reconnectCap)
            * Double.random(in: 0.5...1)
        self.reconnectScheduled = true
        let bound = NIOLoopBound(self, eventLoop: self.eventLoop)
        self.eventLoop.scheduleTask(in: TimeAmount(delay)) {
            bound.value.reconnectScheduled = false
            bound.value.ensureConnection()
        }
    }
}
