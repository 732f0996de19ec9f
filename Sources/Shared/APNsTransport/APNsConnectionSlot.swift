import APNsCommon
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// One long-lived APNs connection position in a pool, pinned to one event loop. It owns the current
/// connection (replaced after GOAWAY or loss, with jittered backoff), the requests waiting for a stream,
/// and the deadlines. Every mutable thing lives in `SlotCore`, touched only on `eventLoop`.
final class APNsConnectionSlot: Sendable {
    let eventLoop: any EventLoop
    let requestTimeout: Duration
    /// What the pool reads off this connection to size itself (`PoolSizer`), from any thread.
    let meter = SlotMeter()
    private let core: NIOLoopBoundBox<SlotCore>

    init(
        eventLoop: any EventLoop, endpoint: APNsEndpoint, tls: NIOSSLContext, configuration: APNsClientConfiguration,
        tokens: ProviderTokenCache, logger: Logger
    ) {
        self.eventLoop = eventLoop
        self.requestTimeout = configuration.requestTimeout
        self.core = NIOLoopBoundBox.makeBoxSendingValue(
            SlotCore(
                eventLoop: eventLoop, endpoint: endpoint, tls: tls, configuration: configuration, tokens: tokens,
                meter: self.meter, logger: logger),
            as: SlotCore.self, eventLoop: eventLoop)
    }

    /// Queues the requests; the future completes, in request order, with APNs' answer or a transport error for each.
    func submit(_ requests: ArraySlice<APNsRequest>, credentials: APNsCredentials) -> EventLoopFuture<
        [APNsClient.Result]
    > {
        let promise = self.eventLoop.makePromise(of: [APNsClient.Result].self)
        let deadline = NIODeadline.now() + TimeAmount(self.requestTimeout)
        self.eventLoop.execute { [core] in
            core.value.submit(
                SlotBatch(requests: requests, credentials: credentials, deadline: deadline, promise: promise))
        }
        return promise.futureResult
    }

    func shutdown() -> EventLoopFuture<Void> {
        self.eventLoop.flatSubmit { [core] in core.value.shutdown() }
    }

    /// Closes the connection if nothing waits or is in flight on it (a pool that shrank); the next submit connects
    /// again. The connection is let go first, as after a GOAWAY, so a submit that comes while it closes starts its
    /// streams on a new one, never on the closing one.
    func closeIfIdle() {
        self.eventLoop.execute { [core] in
            let core = core.value
            guard core.gate.isIdle, let connection = core.connection else { return }
            core.connection = nil
            core.gate.connectionReplaced()
            core.meter.publish(core.gate)
            connection.channel.close(promise: nil)
        }
    }

    /// Test and metrics view: streams in flight on the current connection, connections made so far.
    func snapshot() -> EventLoopFuture<(inFlight: Int, generation: Int)> {
        self.eventLoop.submit { [core] in (core.value.gate.inFlight, core.value.generation) }
    }
}

final class SlotCore {
    /// One request of a batch, while it waits for a stream or is in flight. It refers to its request in the batch
    /// rather than holding a copy.
    final class Request {
        let batch: SlotBatch
        let index: Int
        var generation = 0
        var streamID: Int?
        /// The provider token this request went out with, and whether it was already retried with a new one.
        var providerToken: String?
        var retriedWithNewToken = false
        /// When its stream went out: the round trip the pool sizes itself by.
        var sentAt: NIODeadline?

        init(batch: SlotBatch, index: Int) {
            self.batch = batch
            self.index = index
        }

        var request: APNsRequest { self.batch.requests[self.index] }
        var credentials: APNsCredentials { self.batch.credentials }
        var deadline: NIODeadline { self.batch.deadline }

        func answer(_ result: APNsClient.Result) { self.batch.answer(self.index, result) }
    }

    struct Connection {
        var channel: any Channel
        var handler: APNsConnectionHandler
        var generation: Int
    }

    let eventLoop: any EventLoop
    let endpoint: APNsEndpoint
    let tls: NIOSSLContext
    let configuration: APNsClientConfiguration
    let tokens: ProviderTokenCache
    let meter: SlotMeter
    let logger: Logger
    var gate: StreamGate<Int>
    var requests = IDTable<Request>()
    var nextID = 0
    var connection: Connection?
    /// Connected, but not yet through TLS and the HTTP/2 preface.
    var pendingConnection: Connection?
    var connecting = false
    var generation = 0
    /// GOAWAY's last processed stream per connection generation.
    var goAwayLastStreamID: [Int: Int] = [:]
    /// Connections let go after GOAWAY whose streams have not all ended, by generation: their requests' deadlines
    /// reset those streams, and a shutdown closes them.
    var draining: [Int: Connection] = [:]
    var reconnectAttempts = 0
    var reconnectScheduled = false
    var sweep: RepeatedTask?
    var isShutdown = false
    var lastReadAt = NIODeadline.now()
    /// The provider token and its `authorization` value, built once per token: a slot serves one (team, key), so
    /// the shared cache's lock and hashed lookup are taken again only once the cache changed or the token is due.
    var authorization: (held: ProviderTokenCache.Held, header: String)?
    var pingSentAt: NIODeadline?

    init(
        eventLoop: any EventLoop, endpoint: APNsEndpoint, tls: NIOSSLContext, configuration: APNsClientConfiguration,
        tokens: ProviderTokenCache, meter: SlotMeter, logger: Logger
    ) {
        self.eventLoop = eventLoop
        self.endpoint = endpoint
        self.tls = tls
        self.configuration = configuration
        self.tokens = tokens
        self.meter = meter
        self.logger = logger
        self.gate = StreamGate(localMaxStreams: configuration.maxConcurrentStreams)
    }

    // MARK: requests

    func submit(_ batch: SlotBatch) {
        guard !self.isShutdown else {
            for index in batch.requests.indices { batch.answer(index, .failure(.shutdown)) }
            return
        }
        for index in batch.requests.indices {
            let id = self.nextID
            self.nextID += 1
            self.requests[id] = Request(batch: batch, index: index)
            self.gate.enqueue(id)
        }
        self.startSweepIfNeeded()
        self.ensureConnection()
        self.pump()
    }

    func pump() {
        guard let connection = self.connection else { return }
        // Stops when the connection takes no more (a request came back unsent) or was replaced meanwhile.
        while self.connection?.generation == connection.generation, let id = self.gate.startNext() {
            guard let request = self.requests[id] else {
                self.gate.finished(authenticated: false)
                continue
            }
            request.generation = connection.generation
            guard self.startStream(id: id, request: request, on: connection) else { break }
        }
        connection.handler.flush()
    }

    /// Starts the request's stream; false when the connection took no new stream (it is closing, or its stream ids
    /// ran out): the request was not written and waits, first in line, for the next connection.
    private func startStream(id: Int, request: Request, on connection: Connection) -> Bool {
        let authorization: String
        if let current = self.authorization, self.tokens.isCurrent(current.held) {
            authorization = current.header
        } else {
            let credentials = request.credentials
            do {
                // One token per (team, key), shared and cached: a lookup, not a signature.
                let held = try self.tokens.held(
                    teamID: credentials.teamID, keyID: credentials.keyID, signingKey: credentials.signingKey)
                authorization =
                    held.token == self.authorization?.held.token ? self.authorization!.header : "bearer " + held.token
                self.authorization = (held, authorization)
            } catch {
                self.requests[id] = nil
                self.gate.finished(authenticated: false)
                request.answer(.failure(.connectFailed("cannot sign a provider token: \(error)")))
                return true
            }
        }
        request.providerToken = self.authorization?.held.token
        guard
            let streamID = connection.handler.send(
                requestID: id, request: request.request, authorization: authorization, authority: self.endpoint.host)
        else {
            // Not sent, so it cannot have been delivered. The connection's inactive or GOAWAY event replaces it (a
            // GOAWAY for ids used up came during `send`, and already reset the gate).
            if self.connection?.generation == connection.generation { self.gate.finished(authenticated: false) }
            self.sendAgain(id, request)
            return false
        }
        request.streamID = streamID
        request.sentAt = .now()
        return true
    }

    /// A request the server did not process goes first in line for the next stream, unless the slot is shutting
    /// down: then nothing will send it, and it fails.
    private func sendAgain(_ id: Int, _ request: Request) {
        guard !self.isShutdown else {
            self.requests[id] = nil
            request.answer(.failure(.shutdown))
            return
        }
        request.streamID = nil
        self.gate.requeueFirst(id)
    }

    func streamEnded(id: Int, result: StreamResult) {
        guard let request = self.requests[id] else { return }
        let current = request.generation == self.connection?.generation
        switch result {
        case .response(let status, let apnsID, let body):
            if current {
                self.gate.finished(authenticated: status != 403)
                self.meter.answered(after: request.sentAt.map { NIODeadline.now() - $0 }, streams: self.gate)
            }
            let outcome = APNsWireFormat.outcome(status: status, apnsID: apnsID, body: body)
            if case .rejected(_, let reason, _) = outcome, reason.action == .refreshCredentials,
                !request.retriedWithNewToken, let used = request.providerToken,
                self.tokens.invalidate(
                    token: used, teamID: request.credentials.teamID, keyID: request.credentials.keyID,
                    signingKey: request.credentials.signingKey)
            {
                // The provider token was refused and the cache has, or will now mint, another (once, however many
                // requests used it; not for a token under a minute old): retry once with it.
                request.retriedWithNewToken = true
                self.sendAgain(id, request)
            } else {
                self.requests[id] = nil
                request.answer(.success(outcome))
            }
        case .closed, .refused:
            if current { self.gate.finished(authenticated: false) }
            if self.wasNotProcessed(result, generation: request.generation) {
                // The server said it never saw this stream: send it again on the next connection.
                self.sendAgain(id, request)
                self.ensureConnection()
            } else {
                self.logger.trace(
                    "APNs stream lost",
                    metadata: [
                        "stream": "\(result)", "generation": "\(request.generation)",
                        "goaway": "\(self.goAwayLastStreamID)",
                    ])
                self.requests[id] = nil
                request.answer(.failure(.connectionLost))
            }
        }
        self.pump()
    }

    private func wasNotProcessed(_ result: StreamResult, generation: Int) -> Bool {
        guard case .closed(let streamID) = result else { return true }  // refused
        guard let last = self.goAwayLastStreamID[generation] else { return false }
        return streamID > last
    }
}
