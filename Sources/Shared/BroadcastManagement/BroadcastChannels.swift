import APNsBroadcast
import APNsCommon
import Foundation
import LiveActivitiesCore
import Logging
import PostgresStore

/// Broadcast channels at Apple and here, kept in step: what `PUT`/`DELETE /api/broadcast-channels/{name}` and the
/// channel maintenance job do. Apple creates the channel first; the row follows. Two creators racing for one name
/// both create at Apple; the one whose row loses deletes its own channel there again.
public struct BroadcastChannels: Sendable {
    let store: PostgresBroadcastChannelStore
    let deliveries: DeliveryConfigCache
    let client: APNsBroadcastClient
    let logger: Logger

    public init(database: Database, masterKey: MasterKey, client: APNsBroadcastClient, logger: Logger) {
        self.store = PostgresBroadcastChannelStore(database: database)
        self.deliveries = DeliveryConfigCache(
            apps: PostgresAppStore(database: database, masterKey: masterKey), ttl: .seconds(5))
        self.client = client
        self.logger = logger
    }

    public func channel(appID: Int64, name: String) async throws -> BroadcastChannel? {
        try await self.store.channel(appID: appID, name: name)
    }

    public func list(appID: Int64, after: String?, limit: Int) async throws -> (channels: [BroadcastChannel], used: Int)
    {
        try await self.store.list(appID: appID, after: after, limit: limit)
    }

    /// The name's channel, created at Apple when it has none. `created` is false when it existed.
    public func ensure(appID: Int64, name: String, storage: BroadcastStorage) async throws -> (
        channel: BroadcastChannel, created: Bool
    ) {
        if let existing = try await self.store.channel(appID: appID, name: name) {
            guard existing.storage == storage else {
                throw BroadcastChannelError.storageMismatch(existing: existing.storage)
            }
            return (existing, false)
        }
        guard try await self.store.count(appID: appID) < BroadcastChannel.limitPerApp else {
            throw BroadcastChannelError.limitReached(limit: BroadcastChannel.limitPerApp)
        }
        let (bundleID, credentials) = try await self.credentials(appID: appID)
        let answer = try await self.call {
            try await self.client.createChannel(
                bundleID: bundleID, storage: storage.messageStoragePolicy, credentials: credentials)
        }
        guard answer.status == 201 || answer.status == 200, let channelID = answer.channelID, !channelID.isEmpty else {
            if answer.reason == "CannotCreateChannelConfig" {
                throw BroadcastChannelError.limitReached(limit: BroadcastChannel.limitPerApp)
            }
            throw BroadcastChannelError.refused(status: answer.status, reason: answer.reason ?? "no apns-channel-id")
        }
        let environment = credentials.environment.rawValue
        if let inserted = try await self.store.insert(
            appID: appID, environment: environment, name: name, channelID: channelID, storage: storage)
        {
            self.logger.info("broadcast channel created", metadata: ["app_id": "\(appID)", "name": "\(name)"])
            return (inserted, true)
        }
        // Another request created the name's channel meanwhile: ours is surplus at Apple.
        _ = try? await self.client.deleteChannel(bundleID: bundleID, channelID: channelID, credentials: credentials)
        guard let winner = try await self.store.channel(appID: appID, name: name) else {
            throw BroadcastChannelError.unreachable("the channel vanished while it was created")
        }
        return (winner, false)
    }

    /// Deletes the name's channel at Apple (irreversible) and here. False when the name has none.
    public func delete(appID: Int64, name: String) async throws -> Bool {
        guard let existing = try await self.store.channel(appID: appID, name: name) else { return false }
        try await self.deleteAtApple(appID: appID, channelID: existing.channelID)
        return try await self.store.remove(
            appID: appID, environment: existing.environment, channelID: existing.channelID)
    }

    /// Deletes a channel at Apple; one Apple no longer knows counts as deleted.
    func deleteAtApple(appID: Int64, channelID: String) async throws {
        let (bundleID, credentials) = try await self.credentials(appID: appID)
        let answer = try await self.call {
            try await self.client.deleteChannel(bundleID: bundleID, channelID: channelID, credentials: credentials)
        }
        guard answer.isSuccess || answer.reason == "ChannelNotRegistered" else {
            throw BroadcastChannelError.refused(status: answer.status, reason: answer.reason ?? "")
        }
    }

    func credentials(appID: Int64) async throws -> (String, APNsCredentials) {
        guard let entry = try await self.deliveries.configuration(appID: appID) else {
            throw BroadcastChannelError.noCredentials
        }
        return entry
    }

    func call(_ body: () async throws -> APNsBroadcastAnswer) async throws -> APNsBroadcastAnswer {
        do {
            return try await body()
        } catch {
            throw BroadcastChannelError.unreachable("\(error)")
        }
    }
}
