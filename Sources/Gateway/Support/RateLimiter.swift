import Synchronization

/// Token buckets per (app, credential role): each holds one second of the app's rate and refills continuously. Per
/// gateway process: with N gateways behind a balancer, an app gets up to N times its rate. A bucket not used for a
/// minute is forgotten.
final class RateLimiter: Sendable {
    struct Key: Hashable {
        var appID: Int64
        var server: Bool
    }

    struct Bucket {
        var tokens: Double
        var at: ContinuousClock.Instant
    }

    private let buckets = Mutex<[Key: Bucket]>([:])

    /// Takes one request from the bucket; nil when allowed, else the seconds until one is available.
    func take(appID: Int64, server: Bool, rate: Int, now: ContinuousClock.Instant = .now) -> Int? {
        let capacity = Double(rate)
        return self.buckets.withLock { buckets in
            let key = Key(appID: appID, server: server)
            var bucket = buckets[key] ?? Bucket(tokens: capacity, at: now)
            bucket.tokens = min(capacity, bucket.tokens + capacity * (now - bucket.at).seconds)
            bucket.at = now
            defer {
                buckets[key] = bucket
                if buckets.count > 50_000 { buckets = buckets.filter { now - $0.value.at < .seconds(60) } }
            }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / capacity).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }
}
