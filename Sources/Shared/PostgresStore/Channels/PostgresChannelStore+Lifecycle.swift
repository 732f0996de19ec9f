import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

extension PostgresChannelStore {
    public func forget(appID: Int64, channelID: UUID) async throws -> ForgetCounts? {
        let rows = try await self.database.client.query(
            ChannelStatements.Forget.query(channelID, appID), logger: self.database.logger)
        guard let row = try rows.elements.first.map(ChannelStatements.Forget.Row.init), row.channels > 0 else {
            return nil
        }
        return ForgetCounts(
            channels: row.channels, tags: row.tags, pushToStartTokens: row.pushToStartTokens,
            liveActivities: row.liveActivities, pendingSchedules: row.pendingSchedules)
    }

    public func changeTags(appID: Int64, _ change: TagChange) async throws -> (updated: Int, unknown: [UUID]) {
        try await self.database.transaction { connection in
            let rows = try await connection.query(
                ChannelStatements.LockMany.query(appID, change.channelIDs), logger: self.database.logger)
            var found: [UUID] = []
            for try await id in rows.decode(UUID.self) { found.append(id) }
            let unknown = change.channelIDs.filter { !found.contains($0) }
            guard !found.isEmpty else { return (0, unknown) }
            let add: [String: [String]]
            switch change.operation {
            case .set(let groups):
                try await connection.query(
                    ChannelStatements.DeleteTagGroupsOfMany.query(found, Array(groups.keys)),
                    logger: self.database.logger)
                add = groups
            case .modify(let added, let removed):
                let pairs = Self.pairs(removed)
                if !pairs.groups.isEmpty {
                    try await connection.query(
                        ChannelStatements.DeleteTagsOfMany.query(pairs.groups, pairs.tags, found),
                        logger: self.database.logger)
                }
                add = added
            }
            let pairs = Self.pairs(add)
            if !pairs.groups.isEmpty {
                try await connection.query(
                    ChannelStatements.InsertTagsOfMany.query(found, appID, pairs.groups, pairs.tags),
                    logger: self.database.logger)
                try await Quotas.checkTags(channels: found, appID: appID, on: connection, logger: self.database.logger)
            }
            return (found.count, unknown)
        }
    }

    public func removeNamedUser(appID: Int64, channelID: UUID) async throws -> Bool {
        let rows = try await self.database.client.query(
            ChannelStatements.RemoveNamedUser.query(channelID, appID), logger: self.database.logger)
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
