import LiveActivitiesCore

/// How pushes are split and sent.
public struct DeliverySettings: Sendable {
    /// Targets per batch job (the unit another worker can take over).
    public var batchSize = 10_000
    /// Targets selected, sent and recorded together (the most a crash can send twice). Each chunk costs PostgreSQL a
    /// select and a record, run (and often planned) once whatever the chunk's size: a million-token update spent
    /// 6-31% less PostgreSQL CPU in chunks of 3,000 than of 1,000, a start 6-17% (`make bench-fanout`,
    /// docs/benchmarks.md).
    public var chunkSize = 3000
    /// The most targets a push's fan-out job reads first (one more) and sends itself when they are all; the fan-out
    /// job runs on the express lane beside single updates, so this stays at 1,000 while batches send `chunkSize`.
    public var firstChunkSize = 1000
    /// Attempts per token for answers worth retrying (429, 5xx, no answer), with backoff in between.
    public var maxAttempts = 8
    public var backoff = Backoff(base: .milliseconds(100), cap: .seconds(2))
    /// A push sent in batches leaves its update stamps pending in `delivery_stamps`, folded in after the push.
    public var deferStamps = true

    public init() {}
}
