import Foundation
import HTTPTypes
import LiveActivitiesCore
import NIOConcurrencyHelpers
import PostgresStore
import Testing

@testable import Gateway

/// A change to an app made anywhere (here: SQL, as another gateway's would be) reaches this gateway's cached
/// credentials within about a second; random app keys cannot flush the cache.
@Suite struct GatewayCredentialChangeTests {
    @Test func aRotationElsewhereStopsTheOldSecretWithinASecond() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let uri = "/api/channels/00000000-0000-0000-0000-000000000000"
            #expect(try await gw.request(.get, uri, auth: app.server).status == .notFound)  // cached now
            _ = try await gw.database.client.query(
                "UPDATE apps SET master_secret_hash = app_secret_hash WHERE app_key = \(app.key)")
            let start = ContinuousClock.now
            var status = HTTPResponse.Status.notFound
            while ContinuousClock.now < start + .seconds(2), status != .unauthorized {
                status = try await gw.request(.get, uri, auth: app.server).status
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(status == .unauthorized, "the cached secret still worked 2 s after the change")
            // The app secret is now the master secret too, until the deletion reaches the cache (the
            // request made at once still answered 404 on a loaded machine).
            _ = try await gw.database.client.query("DELETE FROM apps WHERE app_key = \(app.key)")
            let deleted = ContinuousClock.now
            status = .notFound
            while ContinuousClock.now < deleted + .seconds(2), status != .unauthorized {
                status = try await gw.request(.get, uri, auth: app.device).status
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(status == .unauthorized, "the deleted app's secret still worked 2 s after the deletion")
        }
    }

    /// Counts the store's lookups.
    struct CountingStore: AppStore {
        let real: PostgresAppStore
        let lookups: NIOLockedValueBox<[String: Int]>

        func create(name: String, bundleID: String, apns: APNsKeyMaterial) async throws -> (AppSummary, AppSecrets) {
            try await self.real.create(name: name, bundleID: bundleID, apns: apns)
        }
        func list() async throws -> [AppSummary] { try await self.real.list() }
        func get(appKey: String) async throws -> AppSummary? { try await self.real.get(appKey: appKey) }
        func replaceCredentials(appKey: String, apns: APNsKeyMaterial) async throws -> AppSummary? {
            try await self.real.replaceCredentials(appKey: appKey, apns: apns)
        }
        func rotateSecrets(appKey: String) async throws -> AppSecrets? {
            try await self.real.rotateSecrets(appKey: appKey)
        }
        func delete(appKey: String) async throws -> Bool { try await self.real.delete(appKey: appKey) }
        func authRecord(appKey: String) async throws -> AppAuthRecord? {
            self.lookups.withLockedValue { $0[appKey, default: 0] += 1 }
            return try await self.real.authRecord(appKey: appKey)
        }
        func deliveryConfiguration(appID: Int64) async throws -> (bundleID: String, key: APNsKeyMaterial)? {
            try await self.real.deliveryConfiguration(appID: appID)
        }
    }

    @Test func randomKeysNeitherFlushTheCacheNorCostAQueryEach() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let lookups = NIOLockedValueBox<[String: Int]>([:])
            let store = CountingStore(
                real: PostgresAppStore(database: gw.database, masterKey: .random()), lookups: lookups)
            let cache = CredentialCache(store: store, unknownCapacity: 100, missesPerSecond: 200)
            #expect(try await cache.record(appKey: app.key) != nil)
            var refused = 0
            for _ in 0..<2000 {
                do {
                    #expect(try await cache.record(appKey: Credentials.generate()) == nil)
                } catch is CredentialCache.TooManyUnknownKeys {
                    refused += 1
                }
            }
            #expect(try await cache.record(appKey: app.key) != nil)
            let counts = lookups.withLockedValue { $0 }
            #expect(counts[app.key] == 1, "the real app's record was evicted")
            #expect(counts.values.reduce(0, +) < 1000, "\(counts.count) lookups")
            #expect(refused > 1000)
        }
    }
}
