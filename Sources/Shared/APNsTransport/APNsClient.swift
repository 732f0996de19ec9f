import APNsCommon
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Sends `liveactivity` notifications to APNs over pooled HTTP/2 connections with ES256 provider tokens.
///
/// One pool per (team id, key id, signing key, environment), never mixing teams or keys on a connection. `send` takes a
/// batch whose body buffers are shared (encoded once per push) and returns one result per request, in order.
/// Requests the server did not process (GOAWAY, refused stream) are re-sent transparently; a refused provider
/// token is dropped, re-minted once, and each affected request retried once; everything else is the caller's.
public final class APNsClient: Sendable {
    public typealias Result = Swift.Result<APNsOutcome, APNsTransportError>

    struct PoolKey: Hashable {
        var teamID: String
        var keyID: String
        var fingerprint: String
        var environment: APNsEnvironment
    }

    public let configuration: APNsClientConfiguration
    public let tokens: ProviderTokenCache
    let group: any EventLoopGroup
    /// Where each pool's express connection lives: an express lane's loop, or one of `group`'s.
    let expressEventLoop: (any EventLoop)?
    let tls: NIOSSLContext
    let logger: Logger
    private let pools = Mutex<[PoolKey: Pool]>([:])

    public init(
        configuration: APNsClientConfiguration = .init(),
        tokens: ProviderTokenCache = ProviderTokenCache(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        expressEventLoop: (any EventLoop)? = nil,
        logger: Logger = Logger(label: "apns")
    ) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.applicationProtocols = ["h2"]
        tls.minimumTLSVersion = .tlsv12
        if let roots = configuration.trustRoots { tls.trustRoots = roots }
        self.tls = try NIOSSLContext(configuration: tls)
        self.configuration = configuration
        self.tokens = tokens
        self.group = eventLoopGroup
        self.expressEventLoop = expressEventLoop
        self.logger = logger
    }

    /// Sends one request.
    public func send(_ request: APNsRequest, credentials: APNsCredentials) async -> Result {
        await self.send([request], credentials: credentials)[0]
    }

    /// Sends a batch; results are in request order. A small batch (at most `expressMaxRequests`) goes over the pool's
    /// express connection, so it is not queued behind the thousands of streams a fan-out keeps in flight.
    public func send(_ requests: [APNsRequest], credentials: APNsCredentials) async -> [Result] {
        guard !requests.isEmpty else { return [] }
        let pool = self.pool(for: credentials)
        if requests.count <= self.configuration.expressMaxRequests {
            return await self.submit(requests[...], credentials: credentials, slots: [pool.express][...], first: 0)
        }
        var results: [Result] = []
        results.reserveCapacity(requests.count)
        var start = 0
        while start < requests.count {
            let end = min(start + self.configuration.window, requests.count)
            let first = pool.cursor.add(1, ordering: .relaxed).newValue
            let slots = pool.slotsToUse(for: end - start, now: self.seconds())
            results += await self.submit(requests[start..<end], credentials: credentials, slots: slots, first: first)
            pool.outstanding.subtract(end - start, ordering: .relaxed)
            start = end
        }
        return results
    }

    /// Spreads the requests over the pool's connections, one event-loop hop per connection.
    private func submit(
        _ requests: ArraySlice<APNsRequest>, credentials: APNsCredentials, slots: ArraySlice<APNsConnectionSlot>,
        first: Int
    ) async -> [Result] {
        let chunk = (requests.count + slots.count - 1) / slots.count
        var waits: [(EventLoopFuture<[Result]>, count: Int)] = []
        var start = requests.startIndex
        var n = 0
        while start < requests.endIndex {
            let end = min(start + chunk, requests.endIndex)
            let slot = slots[slots.startIndex + (first + n) % slots.count]
            waits.append((slot.submit(requests[start..<end], credentials: credentials), end - start))
            start = end
            n += 1
        }
        var results: [Result] = []
        results.reserveCapacity(requests.count)
        for (wait, count) in waits {
            // A slot's batch always succeeds, with one result per request; a failed future would be a bug of ours.
            guard let answers = try? await wait.get(), answers.count == count else {
                results += repeatElement(.failure(.connectionLost), count: count)
                continue
            }
            results += answers
        }
        return results
    }

    private func pool(for credentials: APNsCredentials) -> Pool {
        let key = PoolKey(
            teamID: credentials.teamID, keyID: credentials.keyID, fingerprint: credentials.signingKey.fingerprint,
            environment: credentials.environment)
        let now = self.age()
        return self.pools.withLock { pools in
            if let pool = pools[key] {
                pool.lastUsed.store(now, ordering: .relaxed)
                return pool
            }
            let endpoint = self.configuration.endpointOverride ?? .for(credentials.environment)
            let slot = { (eventLoop: any EventLoop) in
                APNsConnectionSlot(
                    eventLoop: eventLoop, endpoint: endpoint, tls: self.tls, configuration: self.configuration,
                    tokens: self.tokens, logger: self.logger)
            }
            let pool = Pool(
                slots: (0..<max(1, self.configuration.connectionsPerPool)).map { _ in slot(self.group.next()) },
                express: slot(self.expressEventLoop ?? self.group.next()),
                streamsBeforeAnswers: min(self.configuration.maxConcurrentStreams, 100),
                shrinkAfter: self.configuration.shrinkAfter)
            pool.lastUsed.store(now, ordering: .relaxed)
            pools[key] = pool
            return pool
        }
    }

    private let started = ContinuousClock.now

    private func age() -> Int64 {
        let elapsed = ContinuousClock.now - self.started
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    }

    /// Seconds since the client started (the pools' sizing clock).
    func seconds() -> Double { Double(self.age()) / 1e9 }

    /// Ends each pool's sizing window (`PoolSizer`): a pool that needed fewer connections for a while uses fewer,
    /// and closes the others once they are idle. Called every few seconds (a send ends a window too, and uses fewer
    /// from then on; the closing is left to this call).
    public func resizePools() {
        let pools = self.pools.withLock { Array($0.values) }
        let now = self.seconds()
        for pool in pools { pool.resize(now: now) }
    }

    /// The bulk connections each pool spreads its sends over now (for tests and metrics).
    public var connectionsInUse: [Int] { self.pools.withLock { $0.values.map(\.inUse) } }

    /// Closes the pools no send has taken for `idle` (an app that stopped sending, a key replaced or deleted: its
    /// pool is never taken again). `idle` should exceed the request timeout, so no request is in flight on them.
    /// Returns how many were closed.
    @discardableResult
    public func closeIdlePools(idle: Duration) async -> Int {
        let limit = self.age() - (idle.components.seconds * 1_000_000_000 + idle.components.attoseconds / 1_000_000_000)
        let idlePools = self.pools.withLock { pools in
            let gone = pools.filter { $0.value.lastUsed.load(ordering: .relaxed) < limit }
            for key in gone.keys { pools[key] = nil }
            return Array(gone.values)
        }
        for pool in idlePools {
            for slot in pool.slots + [pool.express] { try? await slot.shutdown().get() }
        }
        return idlePools.count
    }

    /// How many pools are open (for tests and metrics).
    public var poolCount: Int { self.pools.withLock { $0.count } }

    /// Closes every connection; requests still waiting fail with `.shutdown`.
    public func shutdown() async {
        let pools = self.pools.withLock { pools in
            defer { pools.removeAll() }
            return Array(pools.values)
        }
        for pool in pools {
            for slot in pool.slots + [pool.express] { try? await slot.shutdown().get() }
        }
    }
}
