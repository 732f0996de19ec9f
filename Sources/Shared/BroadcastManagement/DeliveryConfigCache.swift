import APNsCommon
import LiveActivitiesCore
import PostgresStore
import Synchronization

/// Each app's bundle id and APNs credentials (the key unsealed), cached for a while so that batches do not
/// decrypt per chunk. A credential change is picked up within `ttl`.
///
/// A lock, not an actor, for the reason `UpdateBudgetCache` gives (a hit waited up to 19 ms for the actor on a
/// saturated machine). Two misses at once both read and unseal; the later write wins.
package final class DeliveryConfigCache: Sendable {
    package typealias Entry = (bundleID: String, credentials: APNsCredentials)
    private let apps: any AppStore
    private let ttl: Duration
    private let entries = Mutex<[Int64: (entry: Entry?, expires: ContinuousClock.Instant)]>([:])

    package init(apps: any AppStore, ttl: Duration = .seconds(30)) {
        self.apps = apps
        self.ttl = ttl
    }

    package func configuration(appID: Int64) async throws -> Entry? {
        let now = ContinuousClock.now
        if let cached = self.entries.withLock({ $0[appID] }), cached.expires > now { return cached.entry }
        let entry = try await self.apps.deliveryConfiguration(appID: appID).map { stored in
            (stored.bundleID, try APNsCredentials(stored.key))
        }
        self.entries.withLock { $0[appID] = (entry, now + self.ttl) }
        return entry
    }
}

extension APNsCredentials {
    /// The transport's credentials for an app's stored key.
    init(_ key: APNsKeyMaterial) throws {
        self.init(
            teamID: key.teamID, keyID: key.keyID,
            environment: APNsEnvironment(rawValue: key.environment.rawValue) ?? .production,
            signingKey: try APNsSigningKey(pem: key.privateKeyPEM))
    }
}
