import Foundation
import LiveActivitiesCore
import Logging
import PostgresDatabase
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
            let rows = try await self.database.client.execute(
                try ChannelStatements.SecretByInstall.prepared(appID, installID), logger: self.logger)
            for try await stored in rows.decode(String?.self) {
                if let stored, digest != stored { return .refused }
            }
        }
        return try await self.database.transaction { connection in
            var bindings = PostgresBindings(capacity: 8)
            bindings.append(appID)
            bindings.append(installID)
            bindings.append(registration.optIn)
            bindings.append(registration.liveActivitiesEnabled)
            bindings.append(registration.namedUserID)
            bindings.append(registration.locale)
            bindings.append(registration.timezone)
            bindings.append(ByteBuffer(bytes: ChannelSecret.digest(secret)))
            let inserted = try await connection.execute(
                ChannelStatements.Insert.prepared(bindings: bindings), logger: self.logger)
            for try await id in inserted.decode(UUID.self) {
                try await Self.replaceTags(
                    registration.replacedTagGroups, channelID: id, appID: appID, on: connection, logger: self.logger)
                return .created(id, secret: secret)
            }
            // The install id has a channel: the master secret, or the channel's own secret, may update it; a channel
            // without one (created before channel secrets) is claimed by the first registration.
            let existing = try await connection.execute(
                try ChannelStatements.LockByInstall.prepared(appID, installID), logger: self.logger)
            guard let row = try await existing.collect().first.map(ChannelStatements.LockByInstall.Row.init) else {
                throw ChannelRegistrationRace()
            }
            let (id, stored) = (row.id, row.secretDigest)
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
            var claim = PostgresBindings(capacity: 2)
            claim.append(hash)
            claim.append(id)
            try await connection.execute(ChannelStatements.ClaimSecret.prepared(bindings: claim), logger: self.logger)
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
        let rows = try await self.database.client.execute(
            try ChannelStatements.Verify.prepared(channelID, appID, digest), logger: self.logger)
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
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(registration.optIn)
        bindings.append(registration.liveActivitiesEnabled)
        bindings.append(registration.namedUserID)
        bindings.append(registration.locale)
        bindings.append(registration.timezone)
        bindings.append(channelID)
        bindings.append(appID)
        let rows = try await connection.execute(ChannelStatements.Update.prepared(bindings: bindings), logger: logger)
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
        try await connection.execute(try ChannelStatements.DeleteTagGroups.prepared(channelID, names), logger: logger)
        let pairs = groups.flatMap { group, tags in Set(tags).map { (group, $0) } }
        guard !pairs.isEmpty else { return }
        try await connection.execute(
            try ChannelStatements.InsertTags.prepared(channelID, appID, pairs.map(\.0), pairs.map(\.1)), logger: logger)
        try await Quotas.checkTags(channels: [channelID], appID: appID, on: connection, logger: logger)
    }

    public func lookup(appID: Int64, channelID: UUID) async throws -> ChannelLookup? {
        let rows = try await self.database.client.execute(
            ChannelLookupStatement(channelID: channelID, appID: appID), logger: self.logger)
        for try await row in rows {
            var groups: [String: [String]] = [:]
            for (group, tag) in zip(row.tagGroups, row.tags) { groups[group, default: []].append(tag) }
            return ChannelLookup(
                channelID: channelID, optIn: row.optIn, liveActivitiesEnabled: row.liveActivitiesEnabled,
                tags: groups[ChannelRegistration.deviceTagGroup] ?? [], tagGroups: groups, namedUserID: row.namedUserID,
                locale: row.locale, timezone: row.timezone, created: row.created,
                lastRegistration: row.lastRegistration
            )
        }
        return nil
    }
}
