import LiveActivitiesCore
import PostgresStore

/// Authentication records, cached so that a busy device API does not read `apps` per request. A change to an app
/// reaches every gateway within about a second (`CredentialInvalidator`, `LISTEN app_changed`); `ttl` bounds what a
/// lost notification can leave behind.
///
/// Unknown app keys are remembered apart from known ones, each in a bounded first-in-first-out table: a flood of
/// random keys evicts only other unknown keys, never a real app's record. Lookups of keys in neither table are
/// limited to `missesPerSecond` (a token bucket); beyond it a request is refused without a query.
actor CredentialCache {
    private let store: any AppStore
    private let ttl: Duration
    private var known: BoundedTable<AppAuthRecord>
    private var unknown: BoundedTable<Void>
    private var bucket: Double
    private let missesPerSecond: Double
    private var refilledAt = ContinuousClock.now

    init(
        store: any AppStore, ttl: Duration = .seconds(60), capacity: Int = 100_000, unknownCapacity: Int = 10_000,
        missesPerSecond: Double = 500
    ) {
        self.store = store
        self.ttl = ttl
        self.known = BoundedTable(capacity: capacity)
        self.unknown = BoundedTable(capacity: unknownCapacity)
        self.missesPerSecond = missesPerSecond
        self.bucket = missesPerSecond
    }

    struct TooManyUnknownKeys: Error {}

    func record(appKey: String) async throws -> AppAuthRecord? {
        let now = ContinuousClock.now
        if let record = self.known.value(appKey, now: now) { return record }
        if self.unknown.value(appKey, now: now) != nil { return nil }
        self.bucket = min(
            self.missesPerSecond, self.bucket + self.missesPerSecond * (now - self.refilledAt).seconds)
        self.refilledAt = now
        guard self.bucket >= 1 else { throw TooManyUnknownKeys() }
        self.bucket -= 1
        let record = try await self.store.authRecord(appKey: appKey)
        if let record {
            self.known.insert(appKey, record, expires: now + self.ttl)
        } else {
            self.unknown.insert(appKey, (), expires: now + self.ttl)
        }
        return record
    }

    func invalidate(appKey: String) {
        self.known.remove(appKey)
        self.unknown.remove(appKey)
    }

    /// After the change notifications were interrupted: anything may have changed.
    func invalidateAll() {
        self.known.removeAll()
        self.unknown.removeAll()
    }
}

/// A dictionary of at most `capacity` entries with expiry; the oldest insertions go first.
struct BoundedTable<Value> {
    private var entries: [String: (value: Value, expires: ContinuousClock.Instant)] = [:]
    private var order: [String] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func value(_ key: String, now: ContinuousClock.Instant) -> Value? {
        guard let entry = self.entries[key], entry.expires > now else { return nil }
        return entry.value
    }

    mutating func insert(_ key: String, _ value: Value, expires: ContinuousClock.Instant) {
        if self.entries.updateValue((value, expires), forKey: key) == nil { self.order.append(key) }
        while self.entries.count > self.capacity, self.head < self.order.count {
            self.entries[self.order[self.head]] = nil
            self.head += 1
        }
        if self.head > self.capacity {  // compact the queue of keys now and then
            self.order = self.order[self.head...].filter { self.entries[$0] != nil }
            self.head = 0
        }
    }

    mutating func remove(_ key: String) { self.entries[key] = nil }

    mutating func removeAll() {
        self.entries.removeAll()
        self.order.removeAll()
        self.head = 0
    }
}
