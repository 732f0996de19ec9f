import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// The broadcast channels of each app, in the app's current APNs environment: one per activity name. Every call is
/// scoped by app id. Apple's side (creating and deleting the channel there) is `BroadcastChannels`' in
/// `BroadcastManagement`.
public struct PostgresBroadcastChannelStore: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    private var logger: Logger { self.database.logger }

    static let columns = "c.name, c.channel_id, c.storage, c.environment, c.created_at"

    static func decode<Rows: AsyncSequence>(_ rows: Rows) async throws -> [BroadcastChannel]
    where Rows.Element == PostgresRow {
        var channels: [BroadcastChannel] = []
        for try await (name, id, storage, environment, created) in rows.decode(
            (String, String, String, String, Date).self)
        {
            channels.append(
                BroadcastChannel(
                    name: name, channelID: id, storage: BroadcastStorage(rawValue: storage) ?? .noStorage,
                    environment: environment, created: created))
        }
        return channels
    }

    public func channel(appID: Int64, name: String) async throws -> BroadcastChannel? {
        try await Self.decode(
            self.database.client.query(
                """
                SELECT \(unescaped: Self.columns) FROM broadcast_channels c JOIN apps a ON a.id = c.app_id
                WHERE c.app_id = \(appID) AND c.environment = a.apns_environment AND c.name = \(name)
                """, logger: self.logger)
        ).first
    }

    /// A page in name order after `after`, and how many channels the app has in its environment.
    public func list(appID: Int64, after: String?, limit: Int) async throws -> (channels: [BroadcastChannel], used: Int)
    {
        let channels = try await Self.decode(
            self.database.client.query(
                """
                SELECT \(unescaped: Self.columns) FROM broadcast_channels c JOIN apps a ON a.id = c.app_id
                WHERE c.app_id = \(appID) AND c.environment = a.apns_environment AND c.name > \(after ?? "")
                ORDER BY c.name LIMIT \(limit)
                """, logger: self.logger))
        return (channels, try await self.count(appID: appID))
    }

    public func count(appID: Int64) async throws -> Int {
        let rows = try await self.database.client.query(
            """
            SELECT count(*) FROM broadcast_channels c JOIN apps a ON a.id = c.app_id
            WHERE c.app_id = \(appID) AND c.environment = a.apns_environment
            """, logger: self.logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// Records a channel Apple just created; nil when the name got one meanwhile (the caller deletes its own at Apple).
    public func insert(appID: Int64, environment: String, name: String, channelID: String, storage: BroadcastStorage)
        async throws -> BroadcastChannel?
    {
        try await Self.decode(
            self.database.client.query(
                """
                INSERT INTO broadcast_channels AS c (app_id, environment, name, channel_id, storage)
                VALUES (\(appID), \(environment), \(name), \(channelID), \(storage.rawValue))
                ON CONFLICT (app_id, environment, name) DO NOTHING
                RETURNING \(unescaped: Self.columns)
                """, logger: self.logger)
        ).first
    }

    /// Forgets a channel (after Apple deleted it); instances subscribed to it keep their row but no longer count as
    /// reachable through it.
    @discardableResult
    public func remove(appID: Int64, environment: String, channelID: String) async throws -> Bool {
        let rows = try await self.database.client.query(
            """
            WITH gone AS (
                DELETE FROM broadcast_channels
                WHERE app_id = \(appID) AND environment = \(environment) AND channel_id = \(channelID)
                RETURNING channel_id
            ),
            unsubscribed AS (
                UPDATE live_activities l SET state = 'ended', ended_reason = 'channel_deleted', ended_at = now()
                FROM gone
                WHERE l.app_id = \(appID) AND l.broadcast_channel_id = gone.channel_id AND l.push_token IS NULL
                  AND l.state IN ('active', 'invalid')
            )
            SELECT count(*) FROM gone
            """, logger: self.logger)
        for try await count in rows.decode(Int64.self) { return count > 0 }
        return false
    }

    /// The channels of the names whose channel decides the route of one of `pushes` (a start, or an update or end that
    /// may go by broadcast), in the app's current environment: one read, none when no push needs one. `query` runs
    /// it on the caller's connection or pool.
    static func channels<Rows: AsyncSequence>(
        appID: Int64, routing pushes: [PushRequest],
        query: (PostgresQuery) async throws -> Rows
    ) async throws -> [String: BroadcastChannelRef] where Rows.Element == PostgresRow {
        let names = Set(pushes.filter(\.needsBroadcastChannel).compactMap(\.liveActivity.name))
        guard !names.isEmpty else { return [:] }
        let rows = try await query(
            """
            SELECT c.name, c.channel_id, c.storage FROM broadcast_channels c JOIN apps a ON a.id = c.app_id
            WHERE c.app_id = \(appID) AND c.environment = a.apns_environment AND c.name = ANY(\(Array(names)))
            """)
        var found: [String: BroadcastChannelRef] = [:]
        for try await (name, id, storage) in rows.decode((String, String, String).self) {
            found[name] = BroadcastChannelRef(channelID: id, storage: BroadcastStorage(rawValue: storage) ?? .noStorage)
        }
        return found
    }
}

extension PostgresBroadcastChannelStore {
    /// A channel the maintenance job looks at.
    public struct Maintained: Sendable {
        public var appID: Int64
        public var environment: String
        public var channelID: String
    }

    /// Channels with no push and no tracked instance for their app's `broadcast_idle_after`.
    public func idle(limit: Int) async throws -> [Maintained] {
        let rows = try await self.database.client.query(
            """
            SELECT c.app_id, c.environment, c.channel_id FROM broadcast_channels c JOIN apps a ON a.id = c.app_id
            WHERE coalesce(c.last_push_at, c.created_at) < now() - a.broadcast_idle_after
              AND (c.sending_until IS NULL OR c.sending_until < now())
              AND NOT EXISTS (SELECT 1 FROM live_activities l WHERE l.app_id = c.app_id
                              AND l.broadcast_channel_id = c.channel_id AND l.state = 'active')
            ORDER BY coalesce(c.last_push_at, c.created_at) LIMIT \(limit)
            """, logger: self.logger)
        var found: [Maintained] = []
        for try await (app, environment, channel) in rows.decode((Int64, String, String).self) {
            found.append(Maintained(appID: app, environment: environment, channelID: channel))
        }
        return found
    }

    /// The apps to reconcile (those with a channel, or that delete unknown ones), with their channel ids here in
    /// their current environment, and whether they delete Apple-only channels.
    public func reconcileTargets() async throws -> [(
        appID: Int64, environment: String, ours: Set<String>, deleteUnknown: Bool
    )] {
        let rows = try await self.database.client.query(
            """
            SELECT a.id, a.apns_environment, coalesce(array_agg(c.channel_id) FILTER (WHERE c.channel_id IS NOT NULL),
                   '{}'), a.broadcast_delete_unknown
            FROM apps a LEFT JOIN broadcast_channels c ON c.app_id = a.id AND c.environment = a.apns_environment
            GROUP BY a.id
            HAVING count(c.channel_id) > 0 OR a.broadcast_delete_unknown
            """, logger: self.logger)
        var targets: [(Int64, String, Set<String>, Bool)] = []
        for try await (app, environment, ours, deleteUnknown) in rows.decode((Int64, String, [String], Bool).self) {
            targets.append((app, environment, Set(ours), deleteUnknown))
        }
        return targets
    }

    /// Replaces what the last reconcile found for the app.
    public func recordDrift(
        appID: Int64, environment: String, appleOnly: [String], localOnly: [String], deletedAtApple: Bool
    ) async throws {
        try await self.database.transaction { connection in
            try await connection.query(
                "DELETE FROM broadcast_channel_drift WHERE app_id = \(appID)", logger: self.logger)
            try await connection.query(
                """
                INSERT INTO broadcast_channel_drift (app_id, environment, channel_id, side, deleted_at_apple)
                SELECT \(appID), \(environment), x.id, x.side, x.side = 'apple_only' AND \(deletedAtApple)
                FROM unnest(\(appleOnly + localOnly)::text[],
                            \(appleOnly.map { _ in "apple_only" } + localOnly.map { _ in "local_only" })::text[]) AS x(id, side)
                """, logger: self.logger)
        }
    }
}
