import Foundation
import LiveActivitiesCore
import Logging
import Metrics
import PostgresDatabase
import PostgresNIO

public struct PostgresActivityStore: ActivityStore {
    let database: Database
    let trackBatcher: TrackBatcher

    /// `metrics`: where `gateway_track_statement_calls` (calls per shared track statement) goes.
    public init(database: Database, metrics: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.database = database
        self.trackBatcher = TrackBatcher(client: database.client, logger: database.logger, metrics: metrics)
    }

    /// Buckets for `gateway_track_statement_calls`, for a Prometheus factory's `valueHistogramBuckets`.
    public static let callsPerStatementHistogram = (
        label: TrackBatcher.callsPerStatementMetric, buckets: TrackBatcher.callsPerStatementBuckets
    )

    var logger: Logger { self.database.logger }

    public func setPushToStart(
        appID: Int64, channelID: UUID, attributesType: String, _ registration: PushToStartRegistration
    ) async throws -> PushToStartResult {
        let rows = try await self.database.client.execute(
            try RegistryStatements.SetPushToStart.prepared(
                channelID, appID, registration.token, attributesType, Int32(registration.contractVersion)),
            logger: self.logger)
        guard let row = try rows.elements.first.map(RegistryStatements.SetPushToStart.Row.init), row.channelFound
        else { throw RegistryError.channelNotFound }
        if row.created == true { return .created }
        return row.same == true ? .unchanged : .replaced
    }

    public func deletePushToStart(appID: Int64, channelID: UUID, attributesType: String) async throws -> Int {
        try await self.countingChannelStatement(
            try RegistryStatements.DeletePushToStart.prepared(channelID, appID, attributesType))
    }

    public func track(
        appID: Int64, channelID: UUID, name: String, _ tracking: ActivityTracking, proof: ChannelProof = .server
    ) async throws -> ActivityTrackDecision {
        // Most calls take the lock-free path: one prepared statement (two for a replacement), no transaction, shared
        // with the calls that come at the same time (`TrackBatcher`: one round trip for many under load). Calls
        // that lose a race there, and calls with an end time, run serialized: the same statements in a transaction,
        // after the channel row's lock, so they see what every call for the channel before them committed. A lock-free
        // call can still win a race against them; the transaction then runs again.
        let outcome: TrackOutcome
        if tracking.endAt == nil,
            let lockFree = try await self.trackStatements(
                appID: appID, channelID: channelID, name: name, tracking, proof: proof, on: nil)
        {
            outcome = lockFree
        } else {
            outcome = try await self.trackSerializedRetrying(
                appID: appID, channelID: channelID, name: name, tracking, proof: proof)
        }
        if outcome.unconfirmedStart {
            // A start's chunk record may have written its attempt while this call ran, unseen by it (the record's
            // own follow-up may not see this instance either: `ConfirmStartsStatement`).
            await ConfirmStartsStatement.run(
                appID: appID, channels: [channelID], name: name, in: self.database)
        }
        return outcome.decision
    }

    private func trackSerializedRetrying(
        appID: Int64, channelID: UUID, name: String, _ tracking: ActivityTracking, proof: ChannelProof
    ) async throws -> TrackOutcome {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await self.trackSerialized(
                    appID: appID, channelID: channelID, name: name, tracking, proof: proof)
            } catch let error where attempt < 4 && (error.isUniqueViolation || error is StaleRead) {
                continue
            }
        }
    }

    private struct StaleRead: Error {}

    private func trackSerialized(
        appID: Int64, channelID: UUID, name: String, _ tracking: ActivityTracking, proof: ChannelProof
    ) async throws -> TrackOutcome {
        try await self.database.transaction { connection in
            // Read committed: the statements after this lock take snapshots that include what the holder committed.
            let locked = try await connection.execute(
                try RegistryStatements.LockChannel.prepared(channelID, appID), logger: self.logger)
            for try await _ in locked {}
            guard
                let outcome = try await self.trackStatements(
                    appID: appID, channelID: channelID, name: name, tracking, proof: proof, on: connection)
            else { throw StaleRead() }
            if let endAt = tracking.endAt {
                try await Self.scheduleEnd(
                    at: endAt, appID: appID, channelID: channelID, name: name, instanceID: outcome.instanceID,
                    on: connection, logger: self.logger)
            }
            return outcome
        }
    }

    public func untrack(appID: Int64, channelID: UUID, name: String, _ end: ActivityEnd) async throws
        -> ActivityEndResult
    {
        let dismissed = end.reason == .dismissed
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(channelID)
        bindings.append(appID)
        bindings.append(name)
        bindings.append(end.at)
        bindings.append(end.systemActivityID)
        bindings.append(dismissed)
        let rows = try await self.database.client.execute(
            RegistryStatements.Untrack.prepared(bindings: bindings), logger: self.logger)
        guard let row = try rows.elements.first.map(RegistryStatements.Untrack.Row.init), row.channelFound else {
            throw RegistryError.channelNotFound
        }
        return ActivityEndResult(
            ended: row.ended, recorded: row.changed > 0 || (dismissed && row.alreadyDismissed),
            isNew: row.changed > 0)
    }

    public func reconcile(
        appID: Int64, channelID: UUID, keeping systemActivityIDs: [String], attributesTypes: [String]?
    ) async throws -> Int {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(channelID)
        bindings.append(appID)
        bindings.append(systemActivityIDs)
        bindings.append(attributesTypes)
        return try await self.countingChannelStatement(RegistryStatements.Reconcile.prepared(bindings: bindings))
    }

    /// Runs a statement answering (channels found, rows changed); throws when the channel is not this app's.
    private func countingChannelStatement<S: NamedStatement>(_ statement: PreparedNamedStatement<S>) async throws -> Int
    {
        let rows = try await self.database.client.execute(statement, logger: self.logger)
        guard let row = try rows.elements.first.map(RegistryStatements.CountRow.init), row.channelFound else {
            throw RegistryError.channelNotFound
        }
        return row.changed
    }

    public func summaries(appID: Int64, channelID: UUID) async throws -> ([ActivitySummary], [PushToStartSummary]) {
        var activities: [ActivitySummary] = []
        let rows = try await self.database.client.execute(
            ActivitySummariesStatement(channelID: channelID, appID: appID), logger: self.logger)
        for try await row in rows {
            activities.append(
                .init(
                    name: row.name, attributesType: row.attributesType, systemActivityID: row.systemActivityID,
                    state: row.state, started: row.started, lastUpdate: row.lastUpdate))
        }
        var tokens: [PushToStartSummary] = []
        let tokenRows = try await self.database.client.execute(
            PushToStartSummariesStatement(channelID: channelID, appID: appID), logger: self.logger)
        for try await row in tokenRows {
            tokens.append(
                .init(
                    attributesType: row.attributesType, state: row.state, updated: row.updated,
                    registered: row.registered, lastStart: row.lastStart))
        }
        return (activities, tokens)
    }

    /// An end time given at tracking: one pending `end_at` schedule per instance (a repeat moves it).
    static func scheduleEnd(
        at endAt: Int64, appID: Int64, channelID: UUID, name: String, instanceID: Int64,
        on connection: DatabaseConnection,
        logger: Logger
    ) async throws {
        let sendAt = Date(timeIntervalSince1970: TimeInterval(max(endAt, Int64(Date().timeIntervalSince1970))))
        let push = PushRequest(audience: .channels([channelID]), liveActivity: .init(event: .end, name: name))
        let json = try PostgresScheduleStore.json(push)
        let moved = try await connection.execute(
            try RegistryStatements.MoveEndSchedule.prepared(sendAt, instanceID, channelID), logger: logger)
        var existing: UUID?
        for try await id in moved.decode(UUID.self) { existing = id }
        if let existing {
            try await connection.execute(
                try RegistryStatements.MoveEndScheduleJob.prepared(sendAt, ScheduleFireJob.dedupeKey(existing)),
                logger: logger)
            return
        }
        let id = UUID()
        try await connection.execute(
            try RegistryStatements.InsertEndSchedule.prepared(id, appID, channelID, name, instanceID, json, sendAt),
            logger: logger)
        _ = try await PostgresJobQueue.enqueue(
            [try PostgresScheduleStore.fireJob(appID: appID, id: id, at: sendAt)], on: connection, logger: logger)
    }
}
