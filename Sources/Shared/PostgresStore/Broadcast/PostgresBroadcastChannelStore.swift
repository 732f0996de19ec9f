import Foundation
import LiveActivitiesCore
import Logging
import PostgresDatabase
import PostgresNIO

/// The broadcast channels of each app, in the app's current APNs environment: one per activity name. Every call is
/// scoped by app id. Apple's side (creating and deleting the channel there) is `BroadcastChannels`' in
/// `BroadcastManagement`.
public struct PostgresBroadcastChannelStore: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    private var logger: Logger { self.database.logger }

    static func decode(_ rows: CollectedRows<PostgresRow>) throws -> [BroadcastChannel] {
        try rows.elements.map { try BroadcastStatements.ChannelRow($0).channel }
    }

    public func channel(appID: Int64, name: String) async throws -> BroadcastChannel? {
        try Self.decode(
            await self.database.client.query(BroadcastStatements.Channel.query(appID, name), logger: self.logger)
        ).first
    }

    /// A page in name order after `after`, and how many channels the app has in its environment.
    public func list(appID: Int64, after: String?, limit: Int) async throws -> (channels: [BroadcastChannel], used: Int)
    {
        let channels = try Self.decode(
            await self.database.client.query(
                BroadcastStatements.List.query(appID, after ?? "", limit), logger: self.logger))
        return (channels, try await self.count(appID: appID))
    }

    public func count(appID: Int64) async throws -> Int {
        let rows = try await self.database.client.query(BroadcastStatements.Count.query(appID), logger: self.logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// Records a channel Apple just created; nil when the name got one meanwhile (the caller deletes its own at Apple).
    public func insert(appID: Int64, environment: String, name: String, channelID: String, storage: BroadcastStorage)
        async throws -> BroadcastChannel?
    {
        try Self.decode(
            await self.database.client.query(
                BroadcastStatements.Insert.query(appID, environment, name, channelID, storage.rawValue),
                logger: self.logger)
        ).first
    }

    /// Forgets a channel (after Apple deleted it); instances subscribed to it keep their row but no longer count as
    /// reachable through it.
    @discardableResult
    public func remove(appID: Int64, environment: String, channelID: String) async throws -> Bool {
        let rows = try await self.database.client.query(
            BroadcastStatements.Remove.query(appID, environment, channelID), logger: self.logger)
        for try await count in rows.decode(Int64.self) { return count > 0 }
        return false
    }

    /// The channels of the names whose channel decides the route of one of `pushes` (a start, or an update or end that
    /// may go by broadcast), in the app's current environment: one read, none when no push needs one. `execute` runs
    /// it, prepared, on the caller's connection or pool.
    static func channels<Rows: AsyncSequence>(
        appID: Int64, routing pushes: [PushRequest],
        execute: (PreparedNamedStatement<BroadcastStatements.Routing>) async throws -> Rows
    ) async throws -> [String: BroadcastChannelRef] where Rows.Element == PostgresRow {
        let names = Set(pushes.filter(\.needsBroadcastChannel).compactMap(\.liveActivity.name))
        guard !names.isEmpty else { return [:] }
        let rows = try await execute(try BroadcastStatements.Routing.prepared(appID, Array(names)))
        var found: [String: BroadcastChannelRef] = [:]
        for try await row in rows {
            let row = try BroadcastStatements.Routing.Row(row)
            found[row.name] = row.channel
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
        let rows = try await self.database.client.query(BroadcastStatements.Idle.query(limit), logger: self.logger)
        return try rows.elements.map { row in
            let (app, environment, channel) = try row.decode((Int64, String, String).self)
            return Maintained(appID: app, environment: environment, channelID: channel)
        }
    }

    /// The apps to reconcile (those with a channel, or that delete unknown ones), with their channel ids here in
    /// their current environment, and whether they delete Apple-only channels.
    public func reconcileTargets() async throws -> [(
        appID: Int64, environment: String, ours: Set<String>, deleteUnknown: Bool
    )] {
        let rows = try await self.database.client.query(
            BroadcastStatements.ReconcileTargets.query(), logger: self.logger)
        return try rows.elements.map(BroadcastStatements.ReconcileTargets.Row.init).map {
            ($0.appID, $0.environment, $0.ours, $0.deleteUnknown)
        }
    }

    /// Replaces what the last reconcile found for the app.
    public func recordDrift(
        appID: Int64, environment: String, appleOnly: [String], localOnly: [String], deletedAtApple: Bool
    ) async throws {
        try await self.database.transaction { connection in
            try await connection.query(BroadcastStatements.DeleteDrift.query(appID), logger: self.logger)
            let sides = appleOnly.map { _ in "apple_only" } + localOnly.map { _ in "local_only" }
            try await connection.query(
                BroadcastStatements.InsertDrift.query(appID, environment, appleOnly + localOnly, sides, deletedAtApple),
                logger: self.logger)
        }
    }
}
