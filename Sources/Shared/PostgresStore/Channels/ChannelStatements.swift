import Foundation
import PostgresNIO

/// The channel store's statements (`PostgresChannelStore`). Prepared: the lookup (`ChannelLookupStatement`), and
/// (`prepared(...)`) those of a device's registration and of the check of its secret: an app launch runs them, and
/// unprepared PostgreSQL planned each at every call (for one or two index probes, planning cost as much as running
/// them or more). Unprepared: forgetting a channel, removing its named user and the server's changes to many channels
/// at once.
enum ChannelStatements {
    static let all: [any NamedStatement.Type] = [
        ChannelLookupStatement.self, SecretByInstall.self, Insert.self, LockByInstall.self, ClaimSecret.self,
        Verify.self, Update.self, DeleteTagGroups.self, InsertTags.self, Forget.self, LockMany.self,
        DeleteTagGroupsOfMany.self, DeleteTagsOfMany.self, InsertTagsOfMany.self, RemoveNamedUser.self,
    ]

    /// The secret's digest (hex; NULL: none) of app `$1`'s channel with install id `$2`.
    enum SecretByInstall: NamedStatement {
        static let name = "lagw_channel_secret_by_install_v2"
        static let sql =
            "SELECT encode(secret_hash, 'hex') FROM channels WHERE app_id = $1::int8 AND install_id = $2::text"
    }

    /// A channel for app `$1`'s install id `$2` (opt-in `$3`, live activities `$4`, named user `$5`, locale `$6`,
    /// timezone `$7`, secret digest `$8`), unless the install id has one; returns its id.
    enum Insert: NamedStatement {
        static let name = "lagw_channel_insert_v2"
        static let sql = """
            INSERT INTO channels (app_id, install_id, opt_in, live_activities_enabled, named_user_id, locale, timezone,
                                  secret_hash)
            VALUES ($1::int8, $2::text, coalesce($3::bool, false), coalesce($4::bool, true), $5::text, $6::text,
                    $7::text, $8::bytea)
            ON CONFLICT (app_id, install_id) DO NOTHING
            RETURNING id
            """
    }

    /// Locks app `$1`'s channel with install id `$2`; its id and secret digest (hex; NULL: none).
    enum LockByInstall: NamedStatement {
        static let name = "lagw_channel_lock_by_install_v2"
        static let sql = """
            SELECT id, encode(secret_hash, 'hex') FROM channels
            WHERE app_id = $1::int8 AND install_id = $2::text FOR NO KEY UPDATE
            """

        struct Row {
            var id: UUID
            var secretDigest: String?

            init(_ row: PostgresRow) throws { (self.id, self.secretDigest) = try row.decode((UUID, String?).self) }
        }
    }

    /// Sets channel `$2`'s secret digest to `$1` (NULL: keeps it).
    enum ClaimSecret: NamedStatement {
        static let name = "lagw_channel_claim_secret_v2"
        static let sql = "UPDATE channels SET secret_hash = coalesce($1::bytea, secret_hash) WHERE id = $2::uuid"
    }

    /// A row when channel `$1` is app `$2`'s and digest `$3` (hex) is its secret's, or it has none.
    enum Verify: NamedStatement {
        static let name = "lagw_channel_verify_v2"
        static let sql = """
            SELECT 1 FROM channels WHERE id = $1::uuid AND app_id = $2::int8
              AND (secret_hash IS NULL OR encode(secret_hash, 'hex') = $3::text)
            """
    }

    /// Updates channel `$6` of app `$7` with what a registration gives (NULL: unchanged): opt-in `$1`, live activities
    /// `$2`, named user `$3`, locale `$4`, timezone `$5`. Returns its id when it exists.
    enum Update: NamedStatement {
        static let name = "lagw_channel_update_v2"
        static let sql = """
            UPDATE channels SET
                opt_in = coalesce($1::bool, opt_in),
                live_activities_enabled = coalesce($2::bool, live_activities_enabled),
                named_user_id = coalesce($3::text, named_user_id),
                locale = coalesce($4::text, locale),
                timezone = coalesce($5::text, timezone),
                last_registration = now()
            WHERE id = $6::uuid AND app_id = $7::int8
            RETURNING id
            """
    }

    /// Deletes channel `$1`'s tags of groups `$2`.
    enum DeleteTagGroups: NamedStatement {
        static let name = "lagw_channel_tags_delete_groups_v2"
        static let sql = "DELETE FROM channel_tags WHERE channel_id = $1::uuid AND tag_group = ANY($2::text[])"
    }

    /// Adds to channel `$1` of app `$2` the tags `$4` of groups `$3` (pairs, in order).
    enum InsertTags: NamedStatement {
        static let name = "lagw_channel_tags_insert_v2"
        static let sql = """
            INSERT INTO channel_tags (channel_id, app_id, tag_group, tag)
            SELECT $1::uuid, $2::int8, g, t FROM unnest($3::text[], $4::text[]) AS x(g, t)
            ON CONFLICT DO NOTHING
            """
    }

    /// Forgets channel `$1` of app `$2`: children first, then the channel, all in one statement (one transaction);
    /// the counts come back with it. Its failure rows, launches, start attempts and stored device answers
    /// (`Idempotency-Key`) go too; its id in stored audiences is scrubbed by `RetentionPurge`. (On one PostgreSQL the
    /// `channels_forget_start_attempts` trigger would take the attempts too; Citus runs no such trigger on shards.)
    enum Forget: NamedStatement {
        static let name = "lagw_channel_forget_v2"
        static let sql = """
            WITH ch AS (SELECT id FROM channels WHERE id = $1 AND app_id = $2 FOR UPDATE),
            t AS (DELETE FROM channel_tags WHERE channel_id IN (SELECT id FROM ch) RETURNING 1),
            p AS (DELETE FROM push_to_start_tokens WHERE channel_id IN (SELECT id FROM ch) RETURNING 1),
            l AS (DELETE FROM live_activities WHERE channel_id IN (SELECT id FROM ch) RETURNING 1),
            s AS (DELETE FROM schedules WHERE channel_id IN (SELECT id FROM ch) RETURNING id, state),
            j AS (DELETE FROM jobs WHERE dedupe_key IN (SELECT 'schedule:' || id::text FROM s) AND state = 'queued'),
            f AS (DELETE FROM push_failures WHERE channel_id IN (SELECT id FROM ch)),
            n AS (DELETE FROM launches WHERE channel_id IN (SELECT id FROM ch)),
            o AS (DELETE FROM device_operations WHERE channel_id IN (SELECT id FROM ch)),
            a AS (DELETE FROM start_attempts WHERE channel_id IN (SELECT id FROM ch) AND app_id = $2),
            g AS (INSERT INTO forgotten_channels (app_id, channel_id) SELECT $2, id FROM ch ON CONFLICT DO NOTHING),
            c AS (DELETE FROM channels WHERE id IN (SELECT id FROM ch) RETURNING 1)
            SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM t), (SELECT count(*) FROM p),
                   (SELECT count(*) FROM l), (SELECT count(*) FROM s WHERE state = 'pending')
            """

        struct Row {
            var channels: Int
            var tags: Int
            var pushToStartTokens: Int
            var liveActivities: Int
            var pendingSchedules: Int

            init(_ row: PostgresRow) throws {
                let (channels, tags, tokens, activities, schedules) = try row.decode(
                    (Int64, Int64, Int64, Int64, Int64).self)
                (self.channels, self.tags, self.pushToStartTokens) = (Int(channels), Int(tags), Int(tokens))
                (self.liveActivities, self.pendingSchedules) = (Int(activities), Int(schedules))
            }
        }
    }

    /// Locks app `$1`'s channels among `$2`; returns their ids.
    enum LockMany: NamedStatement {
        static let name = "lagw_channels_lock_many"
        static let sql = "SELECT id FROM channels WHERE app_id = $1 AND id = ANY($2::uuid[]) FOR NO KEY UPDATE"
    }

    /// Deletes channels `$1`'s tags of groups `$2`.
    enum DeleteTagGroupsOfMany: NamedStatement {
        static let name = "lagw_channels_tags_delete_groups"
        static let sql = """
            DELETE FROM channel_tags
            WHERE channel_id = ANY($1::uuid[]) AND tag_group = ANY($2::text[])
            """
    }

    /// Deletes from channels `$3` the tags `$2` of groups `$1` (pairs, in order).
    enum DeleteTagsOfMany: NamedStatement {
        static let name = "lagw_channels_tags_delete"
        static let sql = """
            DELETE FROM channel_tags t USING unnest($1::text[], $2::text[]) AS x(g, tag)
            WHERE t.channel_id = ANY($3::uuid[]) AND t.tag_group = x.g AND t.tag = x.tag
            """
    }

    /// Adds to channels `$1` of app `$2` the tags `$4` of groups `$3` (pairs, in order).
    enum InsertTagsOfMany: NamedStatement {
        static let name = "lagw_channels_tags_insert"
        static let sql = """
            INSERT INTO channel_tags (channel_id, app_id, tag_group, tag)
            SELECT c, $2, x.g, x.tag
            FROM unnest($1::uuid[]) AS c, unnest($3::text[], $4::text[]) AS x(g, tag)
            ON CONFLICT DO NOTHING
            """
    }

    /// Clears channel `$1`'s named user (app `$2`); returns its id when it exists.
    enum RemoveNamedUser: NamedStatement {
        static let name = "lagw_channel_remove_named_user"
        static let sql = "UPDATE channels SET named_user_id = NULL WHERE id = $1 AND app_id = $2 RETURNING id"
    }
}
