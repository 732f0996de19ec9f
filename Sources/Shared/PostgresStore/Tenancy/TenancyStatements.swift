import Foundation
import LiveActivitiesCore
import PostgresNIO

/// The app store's and the quotas' statements (`PostgresAppStore`, `Quotas`).
enum TenancyStatements {
    static let all: [any NamedStatement.Type] = [
        CreateApp.self, ListApps.self, GetApp.self, ReplaceCredentials.self, RotateSecrets.self, DeleteApp.self,
        DeleteAppJobs.self, AuthRecord.self, DeliveryConfiguration.self, TagQuota.self, PendingUpdatesQuota.self,
        SchedulesQuota.self,
    ]

    /// App key `$1`, name `$2`, bundle id `$3`, app and master secret hashes `$4` and `$5`, the APNs team `$6`, key
    /// id `$7`, environment `$8` and sealed private key `$9` (rows: `SummaryRow`).
    enum CreateApp: NamedStatement {
        static let name = "lagw_app_create"
        static let sql = """
            INSERT INTO apps (app_key, name, bundle_id, app_secret_hash, master_secret_hash,
                              apns_team_id, apns_key_id, apns_environment, apns_private_key_sealed)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            RETURNING app_key, name, bundle_id, apns_team_id, apns_key_id, apns_environment, created_at, updated_at
            """
    }

    /// Every app (rows: `SummaryRow`).
    enum ListApps: NamedStatement {
        static let name = "lagw_app_list"
        static let sql = """
            SELECT app_key, name, bundle_id, apns_team_id, apns_key_id, apns_environment, created_at, updated_at
            FROM apps ORDER BY id
            """
    }

    /// The app with key `$1` (a row: `SummaryRow`).
    enum GetApp: NamedStatement {
        static let name = "lagw_app_get"
        static let sql = """
            SELECT app_key, name, bundle_id, apns_team_id, apns_key_id, apns_environment, created_at, updated_at
            FROM apps WHERE app_key = $1
            """
    }

    /// App `$5`'s APNs team `$1`, key id `$2`, environment `$3` and sealed private key `$4` (a row: `SummaryRow`).
    enum ReplaceCredentials: NamedStatement {
        static let name = "lagw_app_replace_credentials"
        static let sql = """
            UPDATE apps SET apns_team_id = $1, apns_key_id = $2,
                apns_environment = $3, apns_private_key_sealed = $4, updated_at = now()
            WHERE app_key = $5
            RETURNING app_key, name, bundle_id, apns_team_id, apns_key_id, apns_environment, created_at, updated_at
            """
    }

    /// A row of `CreateApp`, `ListApps`, `GetApp` or `ReplaceCredentials`.
    struct SummaryRow {
        var summary: AppSummary

        init(_ row: PostgresRow) throws {
            let (appKey, name, bundleID, teamID, keyID, environment, createdAt, updatedAt) = try row.decode(
                (String, String, String, String, String, String, Date, Date).self)
            self.summary = AppSummary(
                appKey: appKey, name: name, bundleID: bundleID, teamID: teamID, keyID: keyID,
                environment: AppEnvironment(rawValue: environment) ?? .production, createdAt: createdAt,
                updatedAt: updatedAt)
        }
    }

    /// App `$3`'s new app and master secret hashes `$1` and `$2`; returns its id.
    enum RotateSecrets: NamedStatement {
        static let name = "lagw_app_rotate_secrets"
        static let sql = """
            UPDATE apps SET app_secret_hash = $1, master_secret_hash = $2,
                secrets_rotated_at = now(), updated_at = now()
            WHERE app_key = $3
            RETURNING id
            """
    }

    /// Deletes the app with key `$1`; returns its id.
    enum DeleteApp: NamedStatement {
        static let name = "lagw_app_delete"
        static let sql = "DELETE FROM apps WHERE app_key = $1 RETURNING id"
    }

    /// Deletes app `$1`'s jobs (jobs carry no foreign key: app 0 is the system).
    enum DeleteAppJobs: NamedStatement {
        static let name = "lagw_app_delete_jobs"
        static let sql = "DELETE FROM jobs WHERE app_id = $1"
    }

    /// What authenticating a call with app key `$1` needs.
    enum AuthRecord: NamedStatement {
        static let name = "lagw_app_auth_record_v2"
        static let sql = """
            SELECT id, app_key, app_secret_hash, master_secret_hash, device_tag_groups, device_named_user,
                   server_requests_per_second, device_requests_per_second, contract_policy,
                   EXISTS (SELECT 1 FROM activity_contracts c WHERE c.app_id = apps.id)
            FROM apps WHERE app_key = $1
            """

        struct Row {
            var record: AppAuthRecord

            init(_ row: PostgresRow) throws {
                let (id, key, appHash, masterHash, groups, namedUser, serverRate, deviceRate, policy, hasContracts) =
                    try row.decode(
                        (Int64, String, ByteBuffer, ByteBuffer, [String], Bool, Int32, Int32, String, Bool).self)
                self.record = AppAuthRecord(
                    id: id,
                    appKey: key,
                    appSecretHash: SecretHash(bytes: Array(appHash.readableBytesView)),
                    masterSecretHash: SecretHash(bytes: Array(masterHash.readableBytesView)),
                    devicePermissions: DevicePermissions(tagGroups: Set(groups), namedUser: namedUser),
                    rates: RequestRates(server: Int(serverRate), device: Int(deviceRate)),
                    contracts: ContractUse(
                        policy: ContractPolicy(rawValue: policy) ?? .enforce, hasContracts: hasContracts)
                )
            }
        }
    }

    /// What delivering for app `$1` needs: its key (the sealing context), bundle id and APNs credentials.
    enum DeliveryConfiguration: NamedStatement {
        static let name = "lagw_app_delivery_configuration"
        static let sql = """
            SELECT app_key, bundle_id, apns_team_id, apns_key_id, apns_environment, apns_private_key_sealed
            FROM apps WHERE id = $1
            """

        struct Row {
            var appKey: String
            var bundleID: String
            var teamID: String
            var keyID: String
            var environment: String
            var sealedKey: [UInt8]

            init(_ row: PostgresRow) throws {
                let (appKey, bundleID, teamID, keyID, environment, sealed) = try row.decode(
                    (String, String, String, String, String, ByteBuffer).self)
                (self.appKey, self.bundleID, self.teamID, self.keyID) = (appKey, bundleID, teamID, keyID)
                (self.environment, self.sealedKey) = (environment, Array(sealed.readableBytesView))
            }
        }
    }

    /// App `$2`'s `max_tags_per_channel` and the most tags any of channels `$1` has.
    enum TagQuota: NamedStatement {
        static let name = "lagw_quota_tags_v2"
        static let sql = """
            SELECT a.max_tags_per_channel, max(x.n)
            FROM apps a
            CROSS JOIN LATERAL (
                SELECT (SELECT count(*) FROM channel_tags t WHERE t.channel_id = c) AS n FROM unnest($1::uuid[]) AS c
            ) x
            WHERE a.id = $2::int8
            GROUP BY a.max_tags_per_channel
            """

        struct Row {
            var limit: Int32
            var most: Int64?

            init(_ row: PostgresRow) throws { (self.limit, self.most) = try row.decode((Int32, Int64?).self) }
        }
    }

    /// App `$3`'s limits on pending device-scheduled updates (per activity, per app) and the counts: activity `$2` on
    /// channel `$1`'s, and the app's (counted up to its limit).
    enum PendingUpdatesQuota: NamedStatement {
        static let name = "lagw_quota_pending_updates_v2"
        static let sql = """
            SELECT a.max_pending_updates_per_activity, a.max_pending_updates,
                   (SELECT count(*) FROM schedules s WHERE s.channel_id = $1::uuid AND s.activity_name = $2::text
                      AND s.state = 'pending'),
                   (SELECT count(*) FROM (SELECT 1 FROM schedules s WHERE s.app_id = a.id AND s.state = 'pending'
                                            AND s.source = 'activity' LIMIT a.max_pending_updates) x)
            FROM apps a WHERE a.id = $3::int8
            """

        struct Row {
            var perActivityLimit: Int32
            var perAppLimit: Int32
            var activityPending: Int64
            var appPending: Int64

            init(_ row: PostgresRow) throws {
                (self.perActivityLimit, self.perAppLimit, self.activityPending, self.appPending) = try row.decode(
                    (Int32, Int32, Int64, Int64).self)
            }
        }
    }

    /// App `$1`'s `max_schedules` and its pending API schedules (counted up to that limit).
    enum SchedulesQuota: NamedStatement {
        static let name = "lagw_quota_schedules"
        static let sql = """
            SELECT a.max_schedules,
                   (SELECT count(*) FROM (SELECT 1 FROM schedules s WHERE s.app_id = a.id AND s.state = 'pending'
                                            AND s.source = 'api' LIMIT a.max_schedules) x)
            FROM apps a WHERE a.id = $1
            """

        struct Row {
            var limit: Int32
            var pending: Int64

            init(_ row: PostgresRow) throws { (self.limit, self.pending) = try row.decode((Int32, Int64).self) }
        }
    }
}
