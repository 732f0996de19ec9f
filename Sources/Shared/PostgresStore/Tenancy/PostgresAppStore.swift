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
        let rows = try await self.database.client.query(
            """
            INSERT INTO apps (app_key, name, bundle_id, app_secret_hash, master_secret_hash,
                              apns_team_id, apns_key_id, apns_environment, apns_private_key_sealed)
            VALUES (\(appKey), \(name), \(bundleID), \(bytea(SecretHash.make(secrets.appSecret).bytes)),
                    \(bytea(SecretHash.make(secrets.masterSecret).bytes)), \(apns.teamID), \(apns.keyID),
                    \(apns.environment.rawValue), \(bytea(sealed)))
            RETURNING \(unescaped: Self.summaryColumns)
            """,
            logger: self.logger
        )
        for try await row in rows.decode(SummaryRow.self) { return (Self.summary(row), secrets) }
        throw MigrationError(description: "insert returned no row")
    }

    public func list() async throws -> [AppSummary] {
        let rows = try await self.database.client.query(
            "SELECT \(unescaped: Self.summaryColumns) FROM apps ORDER BY id",
            logger: self.logger
        )
        var result: [AppSummary] = []
        for try await row in rows.decode(SummaryRow.self) { result.append(Self.summary(row)) }
        return result
    }

    public func get(appKey: String) async throws -> AppSummary? {
        let rows = try await self.database.client.query(
            "SELECT \(unescaped: Self.summaryColumns) FROM apps WHERE app_key = \(appKey)",
            logger: self.logger
        )
        for try await row in rows.decode(SummaryRow.self) { return Self.summary(row) }
        return nil
    }

    public func replaceCredentials(appKey: String, apns: APNsKeyMaterial) async throws -> AppSummary? {
        let sealed = try self.seal(apns, appKey: appKey)
        let rows = try await self.database.client.query(
            """
            UPDATE apps SET apns_team_id = \(apns.teamID), apns_key_id = \(apns.keyID),
                apns_environment = \(apns.environment.rawValue), apns_private_key_sealed = \(bytea(sealed)), updated_at = now()
            WHERE app_key = \(appKey)
            RETURNING \(unescaped: Self.summaryColumns)
            """,
            logger: self.logger
        )
        for try await row in rows.decode(SummaryRow.self) { return Self.summary(row) }
        return nil
    }

    public func rotateSecrets(appKey: String) async throws -> AppSecrets? {
        let secrets = AppSecrets.generate()
        let rows = try await self.database.client.query(
            """
            UPDATE apps SET app_secret_hash = \(bytea(SecretHash.make(secrets.appSecret).bytes)),
                master_secret_hash = \(bytea(SecretHash.make(secrets.masterSecret).bytes)),
                secrets_rotated_at = now(), updated_at = now()
            WHERE app_key = \(appKey)
            RETURNING id
            """,
            logger: self.logger
        )
        for try await _ in rows.decode(Int64.self) { return secrets }
        return nil
    }

    public func delete(appKey: String) async throws -> Bool {
        try await self.database.transaction { connection in
            let rows = try await connection.query(
                "DELETE FROM apps WHERE app_key = \(appKey) RETURNING id",
                logger: self.logger
            )
            var deleted: Int64?
            for try await id in rows.decode(Int64.self) { deleted = id }
            guard let deleted else { return false }
            // Jobs carry no foreign key (app 0 is the system): remove the app's explicitly.
            try await connection.query("DELETE FROM jobs WHERE app_id = \(deleted)", logger: self.logger)
            return true
        }
    }

    public func authRecord(appKey: String) async throws -> AppAuthRecord? {
        let rows = try await self.database.client.query(
            """
            SELECT id, app_key, app_secret_hash, master_secret_hash, device_tag_groups, device_named_user,
                   server_requests_per_second, device_requests_per_second
            FROM apps WHERE app_key = \(appKey)
            """,
            logger: self.logger
        )
        for try await (id, key, appHash, masterHash, groups, namedUser, serverRate, deviceRate) in rows.decode(
            (Int64, String, ByteBuffer, ByteBuffer, [String], Bool, Int32, Int32).self)
        {
            return AppAuthRecord(
                id: id,
                appKey: key,
                appSecretHash: SecretHash(bytes: Array(appHash.readableBytesView)),
                masterSecretHash: SecretHash(bytes: Array(masterHash.readableBytesView)),
                devicePermissions: DevicePermissions(tagGroups: Set(groups), namedUser: namedUser),
                rates: RequestRates(server: Int(serverRate), device: Int(deviceRate))
            )
        }
        return nil
    }

    public func deliveryConfiguration(appID: Int64) async throws -> (bundleID: String, key: APNsKeyMaterial)? {
        let rows = try await self.database.client.query(
            """
            SELECT app_key, bundle_id, apns_team_id, apns_key_id, apns_environment, apns_private_key_sealed
            FROM apps WHERE id = \(appID)
            """,
            logger: self.logger
        )
        for try await (appKey, bundleID, teamID, keyID, environment, sealed) in rows.decode(
            (String, String, String, String, String, ByteBuffer).self
        ) {
            let sealed = Array(sealed.readableBytesView)
            let pem = String(decoding: try self.masterKey.open(sealed, context: "apns-key:\(appKey)"), as: UTF8.self)
            let key = try APNsKeyMaterial(
                teamID: teamID, keyID: keyID, environment: AppEnvironment(rawValue: environment) ?? .production,
                pem: pem)
            return (bundleID, key)
        }
        return nil
    }

    static let summaryColumns =
        "app_key, name, bundle_id, apns_team_id, apns_key_id, apns_environment, created_at, updated_at"
    typealias SummaryRow = (String, String, String, String, String, String, Date, Date)

    static func summary(_ row: SummaryRow) -> AppSummary {
        AppSummary(
            appKey: row.0,
            name: row.1,
            bundleID: row.2,
            teamID: row.3,
            keyID: row.4,
            environment: AppEnvironment(rawValue: row.5) ?? .production,
            createdAt: row.6,
            updatedAt: row.7
        )
    }
}

/// `bytea` parameters: postgres-nio binds `[UInt8]` as an array of "char", so byte strings go as `ByteBuffer`.
func bytea(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }
