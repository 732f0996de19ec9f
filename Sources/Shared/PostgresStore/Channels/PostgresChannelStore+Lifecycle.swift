import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

extension PostgresChannelStore {
    public func forget(appID: Int64, channelID: UUID) async throws -> ForgetCounts? {
        // Children first, then the channel, all in one statement (one transaction); the counts come back with it.
        // Its failure rows, launches and stored device answers (`Idempotency-Key`) go too; its id in stored audiences
        // is scrubbed by `RetentionPurge`.
        let rows = try await self.database.client.query(
            """
            WITH ch AS (SELECT id FROM channels WHERE id = \(channelID) AND app_id = \(appID) FOR UPDATE),
            t AS (DELETE FROM channel_tags WHERE channel_id IN (SELECT id FROM ch) RETURNING 1),
            p AS (DELETE FROM push_to_start_tokens WHERE channel_id IN (SELECT id FROM ch) RETURNING 1),
            l AS (DELETE FROM live_activities WHERE channel_id IN (SELECT id FROM ch) RETURNING 1),
            s AS (DELETE FROM schedules WHERE channel_id IN (SELECT id FROM ch) RETURNING id, state),
            j AS (DELETE FROM jobs WHERE dedupe_key IN (SELECT 'schedule:' || id::text FROM s) AND state = 'queued'),
            f AS (DELETE FROM push_failures WHERE channel_id IN (SELECT id FROM ch)),
            n AS (DELETE FROM launches WHERE channel_id IN (SELECT id FROM ch)),
            o AS (DELETE FROM device_operations WHERE channel_id IN (SELECT id FROM ch)),
            g AS (INSERT INTO forgotten_channels (app_id, channel_id) SELECT \(appID), id FROM ch ON CONFLICT DO NOTHING),
            c AS (DELETE FROM channels WHERE id IN (SELECT id FROM ch) RETURNING 1)
            SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM t), (SELECT count(*) FROM p),
                   (SELECT count(*) FROM l), (SELECT count(*) FROM s WHERE state = 'pending')
            """,
            logger: self.database.logger
        )
        for try await row in rows.decode((Int64, Int64, Int64, Int64, Int64).self) where row.0 > 0 {
            return ForgetCounts(
                channels: Int(row.0), tags: Int(row.1), pushToStartTokens: Int(row.2), liveActivities: Int(row.3),
                pendingSchedules: Int(row.4))
        }
        return nil
    }

    public func changeTags(appID: Int64, _ change: TagChange) async throws -> (updated: Int, unknown: [UUID]) {
        try await self.database.transaction { connection in
            let rows = try await connection.query(
                "SELECT id FROM channels WHERE app_id = \(appID) AND id = ANY(\(change.channelIDs)::uuid[]) FOR NO KEY UPDATE",
                logger: self.database.logger
            )
            var found: [UUID] = []
            for try await id in rows.decode(UUID.self) { found.append(id) }
            let unknown = change.channelIDs.filter { !found.contains($0) }
            guard !found.isEmpty else { return (0, unknown) }
            let add: [String: [String]]
            switch change.operation {
            case .set(let groups):
                try await connection.query(
                    """
                    DELETE FROM channel_tags
                    WHERE channel_id = ANY(\(found)::uuid[]) AND tag_group = ANY(\(Array(groups.keys))::text[])
                    """,
                    logger: self.database.logger
                )
                add = groups
            case .modify(let added, let removed):
                let pairs = Self.pairs(removed)
                if !pairs.groups.isEmpty {
                    try await connection.query(
                        """
                        DELETE FROM channel_tags t USING unnest(\(pairs.groups)::text[], \(pairs.tags)::text[]) AS x(g, tag)
                        WHERE t.channel_id = ANY(\(found)::uuid[]) AND t.tag_group = x.g AND t.tag = x.tag
                        """,
                        logger: self.database.logger
                    )
                }
                add = added
            }
            let pairs = Self.pairs(add)
            if !pairs.groups.isEmpty {
                try await connection.query(
                    """
                    INSERT INTO channel_tags (channel_id, app_id, tag_group, tag)
                    SELECT c, \(appID), x.g, x.tag
                    FROM unnest(\(found)::uuid[]) AS c, unnest(\(pairs.groups)::text[], \(pairs.tags)::text[]) AS x(g, tag)
                    ON CONFLICT DO NOTHING
                    """,
                    logger: self.database.logger
                )
                try await Quotas.checkTags(channels: found, appID: appID, on: connection, logger: self.database.logger)
            }
            return (found.count, unknown)
        }
    }

    public func removeNamedUser(appID: Int64, channelID: UUID) async throws -> Bool {
        let rows = try await self.database.client.query(
            "UPDATE channels SET named_user_id = NULL WHERE id = \(channelID) AND app_id = \(appID) RETURNING id",
            logger: self.database.logger
        )
        for try await _ in rows.decode(UUID.self) { return true }
        return false
    }

    /// Parallel arrays of (group, tag), each pair once.
    static func pairs(_ groups: [String: [String]]) -> (groups: [String], tags: [String]) {
        var seen = Set<[String]>()
        var result: (groups: [String], tags: [String]) = ([], [])
        for (group, tags) in groups.sorted(by: { $0.key < $1.key }) {
            for tag in tags where seen.insert([group, tag]).inserted {
                result.groups.append(group)
                result.tags.append(tag)
            }
        }
        return result
    }
}
