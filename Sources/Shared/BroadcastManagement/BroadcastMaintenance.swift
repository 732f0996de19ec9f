import APNsBroadcast
import APNsCommon
import Foundation
import Logging
import PostgresStore

/// `maintenance.broadcast_channels`, recurring: deletes idle channels at Apple and here (no push and no tracked
/// instance for the app's `broadcast_idle_after`, default 24 h), then compares each app's channels with Apple's
/// `all-channels` and records the channels only one side knows (`broadcast_channel_drift`). Apple-only channels are
/// deleted at Apple only for apps that opt in (`broadcast_delete_unknown`): other systems may share the bundle id.
public struct BroadcastMaintenance: RecurringJob {
    public static let kind = JobKind.broadcastMaintenance

    let channels: BroadcastChannels
    let store: PostgresBroadcastChannelStore
    let database: Database
    public let interval: Duration
    public var queue: Database { self.database }

    public init(channels: BroadcastChannels, database: Database, interval: Duration = .seconds(600)) {
        self.channels = channels
        self.store = PostgresBroadcastChannelStore(database: database)
        self.database = database
        self.interval = interval
    }

    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        let deleted = try await self.deleteIdle(logger: logger)
        let drift = try await self.reconcile(logger: logger)
        if deleted + drift > 0 {
            logger.info("broadcast channels maintained", metadata: ["idle_deleted": "\(deleted)", "drift": "\(drift)"])
        }
        try await self.scheduleNext()
    }

    /// Deletes idle channels, at most 100 a run. Returns how many.
    public func deleteIdle(logger: Logger) async throws -> Int {
        var deleted = 0
        for channel in try await self.store.idle(limit: 100) {
            do {
                try await self.channels.deleteAtApple(appID: channel.appID, channelID: channel.channelID)
                if try await self.store.remove(
                    appID: channel.appID, environment: channel.environment, channelID: channel.channelID)
                {
                    deleted += 1
                }
            } catch {
                logger.warning(
                    "idle broadcast channel not deleted",
                    metadata: ["app_id": "\(channel.appID)", "error": "\(error)"])
            }
        }
        return deleted
    }

    /// Compares every app's channels with Apple's list. Returns how many channels only one side knows.
    public func reconcile(logger: Logger) async throws -> Int {
        var drift = 0
        for target in try await self.store.reconcileTargets() {
            do {
                let (bundleID, credentials) = try await self.channels.credentials(appID: target.appID)
                let answer = try await self.channels.call {
                    try await self.channels.client.allChannels(bundleID: bundleID, credentials: credentials)
                }
                guard answer.isSuccess else {
                    throw BroadcastChannelError.refused(status: answer.status, reason: answer.reason ?? "")
                }
                let apple = Set(answer.channelIDs)
                let appleOnly = apple.subtracting(target.ours).sorted()
                let localOnly = target.ours.subtracting(apple).sorted()
                if target.deleteUnknown {
                    for channelID in appleOnly {
                        try await self.channels.deleteAtApple(appID: target.appID, channelID: channelID)
                    }
                }
                try await self.store.recordDrift(
                    appID: target.appID, environment: target.environment, appleOnly: appleOnly, localOnly: localOnly,
                    deletedAtApple: target.deleteUnknown)
                drift += appleOnly.count + localOnly.count
            } catch {
                logger.warning(
                    "broadcast channels not reconciled", metadata: ["app_id": "\(target.appID)", "error": "\(error)"])
            }
        }
        return drift
    }
}
