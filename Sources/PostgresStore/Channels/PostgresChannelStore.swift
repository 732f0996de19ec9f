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

    public func register(appID: Int64, _ registration: ChannelRegistration) async throws -> (id: UUID, created: Bool) {
        guard let installID = registration.installID else {
            throw ValidationError(path: "channel.install_id", rule: "is required")
        }
        return try await self.database.transaction { connection in
            let rows = try await connection.query(
                """
                INSERT INTO channels (app_id, install_id, opt_in, live_activities_enabled, named_user_id, locale, timezone)
                VALUES (\(appID), \(installID), coalesce(\(registration.optIn), false),
                        coalesce(\(registration.liveActivitiesEnabled), true), \(registration.namedUserID),
                        \(registration.locale), \(registration.timezone))
                ON CONFLICT (app_id, install_id) DO UPDATE SET
                    opt_in = coalesce(\(registration.optIn), channels.opt_in),
                    live_activities_enabled = coalesce(\(registration.liveActivitiesEnabled), channels.live_activities_enabled),
                    named_user_id = coalesce(\(registration.namedUserID), channels.named_user_id),
                    locale = coalesce(\(registration.locale), channels.locale),
                    timezone = coalesce(\(registration.timezone), channels.timezone),
                    last_registration = now()
                RETURNING id, (xmax = 0) AS created
                """,
                logger: self.logger
            )
            var result: (UUID, Bool)?
            for try await row in rows.decode((UUID, Bool).self) { result = row }
            guard let (id, created) = result else { throw MigrationError(description: "upsert returned no row") }
            try await Self.replaceTags(
                registration.replacedTagGroups, channelID: id, appID: appID, on: connection, logger: self.logger)
            return (id, created)
        }
    }

    public func update(appID: Int64, channelID: UUID, _ registration: ChannelRegistration) async throws -> Bool {
        try await self.database.transaction { connection in
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
                logger: self.logger
            )
            var found = false
            for try await _ in rows.decode(UUID.self) { found = true }
            guard found else { return false }
            try await Self.replaceTags(
                registration.replacedTagGroups, channelID: channelID, appID: appID, on: connection, logger: self.logger)
            return true
        }
    }

    static func replaceTags(
        _ groups: [String: [String]], channelID: UUID, appID: Int64, on connection: PostgresConnection, logger: Logger
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
    }

    public func lookup(appID: Int64, channelID: UUID) async throws -> ChannelLookup? {
        let rows = try await self.database.client.query(
            """
            SELECT c.opt_in, c.live_activities_enabled, c.named_user_id, c.locale, c.timezone, c.created_at,
                   c.last_registration,
                   coalesce(array_agg(t.tag_group ORDER BY t.tag_group, t.tag) FILTER (WHERE t.tag IS NOT NULL), '{}'),
                   coalesce(array_agg(t.tag ORDER BY t.tag_group, t.tag) FILTER (WHERE t.tag IS NOT NULL), '{}')
            FROM channels c LEFT JOIN channel_tags t ON t.channel_id = c.id
            WHERE c.id = \(channelID) AND c.app_id = \(appID)
            GROUP BY c.id
            """,
            logger: self.logger
        )
        for try await row in rows.decode(
            (Bool, Bool, String?, String?, String?, Date, Date, [String], [String]).self
        ) {
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
