import APNsCommon
import NIOSSL

public struct APNsClientConfiguration: Sendable {
    /// The most bulk connections per (team, key, environment), besides the express one. A pool uses as many as its
    /// sends need (`PoolSizer`: what is unanswered plus what is sent, and the answered rate times the measured
    /// round trip, over the streams a connection allows) and keeps fewer after `shrinkAfter` of needing fewer.
    public var connectionsPerPool: Int = 8
    /// Apple: "Keep your connections with APNs open across multiple notifications; don't repeatedly open and close
    /// connections. APNs treats rapid connection and disconnection as a denial-of-service attack. You should leave a
    /// connection open unless you know it will be idle for an extended period of time" (Sending notification requests
    /// to APNs). Five minutes of needing fewer, then: a pool that sends a burst a minute keeps its connections.
    public var shrinkAfter: Duration = .seconds(300)
    /// A ceiling on streams per connection: below it the peer's `SETTINGS_MAX_CONCURRENT_STREAMS` governs (APNs is
    /// seen to advertise 500 to 1,500 once a token is accepted), and a lower value it sends later takes effect for
    /// the streams started after it. At a real round trip streams in flight bound a fan-out: a million updates at
    /// 30 ms through 18 connections took 25.0 s with a fixed cap of 100 streams and 14.6 s following the
    /// simulator's 500 (`make bench-fanout`, 2026-11-25), with less worker CPU (6.3 against 4.6 s per worker).
    public var maxConcurrentStreams: Int = 1000
    /// Every request fails with `deadlineExceeded` if not answered in time, waiting included.
    public var requestTimeout: Duration = .seconds(10)
    public var connectTimeout: Duration = .seconds(10)
    /// An idle connection is PINGed after this long and closed if the PING is not answered in `pingTimeout`.
    public var pingInterval: Duration = .seconds(60)
    public var pingTimeout: Duration = .seconds(10)
    /// Reconnect backoff after a lost connection: doubles from `reconnectBase` up to `reconnectCap`, jittered.
    public var reconnectBase: Duration = .milliseconds(100)
    public var reconnectCap: Duration = .seconds(30)
    /// The most requests one `send` call has outstanding at once: larger batches go in windows, so a caller
    /// waits (backpressure) instead of queueing without bound.
    public var window: Int = 4000
    /// A `send` of at most this many requests (a single-activity update, a schedule firing) goes over one more
    /// connection per pool that bulk traffic never uses: behind a fan-out's thousands of streams in flight it would
    /// wait as long as they do. 0 sends everything over the bulk connections.
    public var expressMaxRequests: Int = 64
    /// Send everything here instead of Apple's hosts (the simulator), trusting `trustRoots`.
    public var endpointOverride: APNsEndpoint?
    public var trustRoots: NIOSSLTrustRoots?

    public init() {}
}
