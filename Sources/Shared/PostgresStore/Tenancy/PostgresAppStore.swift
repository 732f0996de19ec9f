import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

public struct PostgresAppStore: AppStore {
    let database: Database
    let masterKey: MasterKey

    public init(database: Database, masterKey: MasterKey) {
        self.database = database
        self.masterKey = masterKey
    }

    private var logger: Logger { self.database.logger }

    private func seal(_ key: APNsKeyMaterial, appKey: String) throws -> [UInt8] {
        try self.masterKey.seal(Array(key.privateKeyPEM.utf8), context: "apns-key:\(appKey)")
    }

    public func create(name: String, bundleID: String, apns: APNsKeyMaterial) async throws -> (AppSummary, AppSecrets) {
        let appKey = Credentials.generate()
        let secrets = AppSecrets.generate()
        let sealed = try self.seal(apns, appKey: appKey)
        let query = try TenancyStatements.CreateApp.query(
            appKey, name, bundleID, bytea(SecretHash.make(secrets.appSecret).bytes),
            bytea(SecretHash.make(secrets.masterSecret).bytes), apns.teamID, apns.keyID, apns.environment.rawValue,
            bytea(sealed))
        let rows = try await self.database.client.query(query, logger: self.logger)
        if let row = rows.elements.first { return (try TenancyStatements.SummaryRow(row).summary, secrets) }
        throw MigrationError(description: "insert returned no row")
    }

    public func list() async throws -> [AppSummary] {
        let rows = try await self.database.client.query(TenancyStatements.ListApps.query(), logger: self.logger)
        return try rows.elements.map { try TenancyStatements.SummaryRow($0).summary }
    }

    public func get(appKey: String) async throws -> AppSummary? {
        let rows = try await self.database.client.query(TenancyStatements.GetApp.query(appKey), logger: self.logger)
        return try rows.elements.first.map { try TenancyStatements.SummaryRow($0).summary }
    }

    public func replaceCredentials(appKey: String, apns: APNsKeyMaterial) async throws -> AppSummary? {
        let sealed = try self.seal(apns, appKey: appKey)
        let query = try TenancyStatements.ReplaceCredentials.query(
            apns.teamID, apns.keyID, apns.environment.rawValue, bytea(sealed), appKey)
        let rows = try await self.database.client.query(query, logger: self.logger)
        return try rows.elements.first.map { try TenancyStatements.SummaryRow($0).summary }
    }

    public func rotateSecrets(appKey: String) async throws -> AppSecrets? {
        let secrets = AppSecrets.generate()
        let query = try TenancyStatements.RotateSecrets.query(
            bytea(SecretHash.make(secrets.appSecret).bytes), bytea(SecretHash.make(secrets.masterSecret).bytes),
            appKey)
        let rows = try await self.database.client.query(query, logger: self.logger)
        for try await _ in rows.decode(Int64.self) { return secrets }
        return nil
    }

    public func delete(appKey: String) async throws -> Bool {
        try await self.database.transaction { connection in
            let rows = try await connection.query(TenancyStatements.DeleteApp.query(appKey), logger: self.logger)
            var deleted: Int64?
            for try await id in rows.decode(Int64.self) { deleted = id }
            guard let deleted else { return false }
            // Jobs carry no foreign key (app 0 is the system): remove the app's explicitly.
            try await connection.query(TenancyStatements.DeleteAppJobs.query(deleted), logger: self.logger)
            return true
        }
    }

    public func authRecord(appKey: String) async throws -> AppAuthRecord? {
        let rows = try await self.database.client.query(
            TenancyStatements.AuthRecord.query(appKey), logger: self.logger)
        return try rows.elements.first.map { try TenancyStatements.AuthRecord.Row($0).record }
    }

    public func deliveryConfiguration(appID: Int64) async throws -> (bundleID: String, key: APNsKeyMaterial)? {
        let rows = try await self.database.client.query(
            TenancyStatements.DeliveryConfiguration.query(appID), logger: self.logger)
        if let row = try rows.elements.first.map(TenancyStatements.DeliveryConfiguration.Row.init) {
            let pem = String(
                decoding: try self.masterKey.open(row.sealedKey, context: "apns-key:\(row.appKey)"), as: UTF8.self)
            let key = try APNsKeyMaterial(
                teamID: row.teamID, keyID: row.keyID,
                environment: AppEnvironment(rawValue: row.environment) ?? .production, pem: pem)
            return (row.bundleID, key)
        }
        return nil
    }
}

/// `bytea` parameters: postgres-nio binds `[UInt8]` as an array of "char", so byte strings go as `ByteBuffer`.
func bytea(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }
