import Foundation
import LiveActivitiesCore

/// Tenants. Every method is scoped by the app key it names.
public protocol AppStore: Sendable {
    func create(name: String, bundleID: String, apns: APNsKeyMaterial) async throws -> (AppSummary, AppSecrets)
    func list() async throws -> [AppSummary]
    func get(appKey: String) async throws -> AppSummary?
    func replaceCredentials(appKey: String, apns: APNsKeyMaterial) async throws -> AppSummary?
    func rotateSecrets(appKey: String) async throws -> AppSecrets?
    /// Deletes the app and everything it owns (channels, tokens, pushes, jobs). Returns false when unknown.
    func delete(appKey: String) async throws -> Bool
    func authRecord(appKey: String) async throws -> AppAuthRecord?
    /// The decrypted APNs key and bundle id, for the worker.
    func deliveryConfiguration(appID: Int64) async throws -> (bundleID: String, key: APNsKeyMaterial)?
}
