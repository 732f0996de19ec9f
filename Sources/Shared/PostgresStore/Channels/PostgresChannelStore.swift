import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

public struct PostgresChannelStore: ChannelStore {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    private var logger: Logger { self.database.logger }

    public func register(appID: Int64, _ registration: ChannelRegistration, proof: ChannelProof) async throws
        -> ChannelRegistrationResult
    {
        guard let installID = registration.installID else {
            throw ValidationError(path: "channel.install_id", rule: "is required")
        }
        let secret = ChannelSecret.generate()
        // A device without the channel's secret is refused before anything is written (not even a lock).
        if case .device(let digest) = proof {
            let rows = try await self.database.client.query(
                "SELECT encode(secret_hash, 'hex') FROM channels WHERE app_id = \(appID) AND install_id = \(installID)",
                logger: self.logger)
            for try await stored in rows.decode(String?.self) {
                if let stored, digest != stored { return .refused }
            }
        }
        return try await self.database.transaction { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO channels (app_id, install_id, opt_in, live_activities_enabled, named_user_id, locale, timezone,
                                      secret_hash)
                VALUES (\(appID), \(installID), coalesce(\(registration.optIn), false),
                        coalesce(\(registration.liveActivitiesEnabled), true), \(registration.namedUserID),
                        \(registration.locale), \(registration.timezone), \(ByteBuffer(bytes: ChannelSecret.digest(secret))))
                ON CONFLICT (app_id, install_id) DO NOTHING
                RETURNING id
                """,
                logger: self.logger)
            for try await id in inserted.decode(UUID.self) {
                try await Self.replaceTags(
                    registration.replacedTagGroups, channelID: id, appID: appID, on: connection, logger: self.logger)
                return .created(id, secret: secret)
            }
            // The install id has a channel: the master secret, or the channel's own secret, may update it; a channel
            // without one (created before channel secrets) is claimed by the first registration.
            let existing = try await connection.query(
                """
                SELECT id, encode(secret_hash, 'hex') FROM channels
                WHERE app_id = \(appID) AND install_id = \(installID) FOR NO KEY UPDATE
                """,
                logger: self.logger)
            var found: (UUID, String?)?
            for try await row in existing.decode((UUID, String?).self) { found = row }
            guard let (id, stored) = found else { throw ChannelRegistrationRace() }
            var claimed = false
            switch proof {
            case .server: break
            case .device(let digest):
                if stored == nil {
                    claimed = true
                } else if digest == nil || digest != stored {
                    return .refused
                }
            }
            let hash = claimed ? ByteBuffer(bytes: ChannelSecret.digest(secret)) : nil
            try await connection.query(
                "UPDATE channels SET secret_hash = coalesce(\(hash), secret_hash) WHERE id = \(id)", logger: self.logger
            )
            _ = try await Self.update(appID: appID, channelID: id, registration, on: connection, logger: self.logger)
            return claimed ? .claimed(id, secret: secret) : .updated(id)
        }
    }

    /// A channel deleted between the insert that found its install id taken and the read of it.
    struct ChannelRegistrationRace: Error {}

    public func verify(appID: Int64, channelID: UUID, proof: ChannelProof) async throws -> Bool {
        let digest: String
        switch proof {
        case .server: return true  // the route's own statement is scoped by the app
        case .device(let presented): digest = presented ?? ""
        }
        let rows = try await self.database.client.query(
            """
            SELECT 1 FROM channels WHERE id = \(channelID) AND app_id = \(appID)
              AND (secret_hash IS NULL OR encode(secret_hash, 'hex') = \(digest))
            """,
            logger: self.logger)
        for try await _ in rows { return true }
        return false
    }

    public func update(appID: Int64, channelID: UUID, _ registration: ChannelRegistration) async throws -> Bool {
        try await self.database.transaction { connection in
            try await Self.update(appID: appID, channelID: channelID, registration, on: connection, logger: self.logger)
        }
    }

    static func update(
        appID: Int64, channelID: UUID, _ registration: ChannelRegistration, on connection: DatabaseConnection,
        logger: Logger
    ) async throws -> Bool {
        let rows = try await connection.query(
            """
            UPDATE channels SET
                opt_in = coalesce(\(registration.optIn), opt_in),
                live_activities_enabled = coalesce(\(registration.liveActivitiesEnabled), live_activities_enabled),
                named_user_id = coalesce(\(registration.namedUserID), named_user_id),
                locale = coalesce(\(registration.locale), locale),
                timezone = coalesce(\(registration.timezone), timezone),
                last_registration = now()
            WHERE id = \(channelID) AND app_id = \(appID)
            RETURNING id
            """,
            logger: logger
        )
        var found = false
        for try await _ in rows.decode(UUID.self) { found = true }
        guard found else { return false }
        try await Self.replaceTags(
            registration.replacedTagGroups, channelID: channelID, appID: appID, on: connection, logger: logger)
        return true
    }

    static func replaceTags(
        _ groups: [String: [String]], channelID: UUID, appID: Int64, on connection: DatabaseConnection, logger: Logger
    ) async throws {
        guard !groups.isEmpty else { return }
        let names = Array(groups.keys)
        try await connection.query(
            "DELETE FROM channel_tags WHERE channel_id = \(channelID) AND tag_group = ANY(\(names))",
            logger: logger
        )
        let pairs = groups.flatMap { group, tags in Set(tags).map { (group, $0) } }
        guard !pairs.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO channel_tags (channel_id, app_id, tag_group, tag)
            SELECT \(channelID), \(appID), g, t FROM unnest(\(pairs.map(\.0))::text[], \(pairs.map(\.1))::text[]) AS x(g, t)
            ON CONFLICT DO NOTHING
            """,
            logger: logger
        )
        try await Quotas.checkTags(channels: [channelID], appID: appID, on: connection, logger: logger)
    }

    public func lookup(appID: Int64, channelID: UUID) async throws -> ChannelLookup? {
        let rows = try await self.database.client.execute(
            ChannelLookupStatement(channelID: channelID, appID: appID), logger: self.logger)
        for try await row in rows {
            var groups: [String: [String]] = [:]
            for (group, tag) in zip(row.7, row.8) { groups[group, default: []].append(tag) }
            return ChannelLookup(
                channelID: channelID, optIn: row.0, liveActivitiesEnabled: row.1,
                tags: groups[ChannelRegistration.deviceTagGroup] ?? [], tagGroups: groups, namedUserID: row.2,
                locale: row.3, timezone: row.4, created: row.5, lastRegistration: row.6
            )
        }
        return nil
    }
}
