import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// `schedule.fire`: turns due schedules into pushes, exactly once. Each schedule has a job due at its time (the
/// wake-up); the job that runs fires every schedule due by then, in bulk, and the others find nothing left to do.
/// Schedule rows are locked (`SKIP LOCKED`) and their state checked in the transaction that inserts the pushes,
/// so a job that runs twice (a lost lease) or two workers at once fire each schedule once.
///
/// A job fires its own app's schedules only (`ClaimedJob.appID`): the queue's claims take turns between apps, so
/// one app's backlog of due schedules does not hold back another's (they used to fire from one list in time order).
public struct ScheduleFiring: JobHandler {
    let database: Database
    let limit: Int

    public init(database: Database, limit: Int = 200) {
        self.database = database
        self.limit = limit
    }

    public struct Report: Sendable, Equatable {
        public var fired = 0
        public var skipped = 0
    }

    /// One batch per run, so that a job never holds a worker's slot for a whole backlog (a slot other apps' jobs
    /// wait for). A full batch leaves a follow-up job for the app (one at a time: deduplicated), so no due schedule
    /// is left without a job to fire it.
    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        let report = try await self.fireDue(now: Date(), appID: job.appID)
        if report.fired + report.skipped >= self.limit {
            _ = try await PostgresJobQueue(database: self.database).enqueue([
                JobRequest(
                    kind: job.kind, appID: job.appID, payload: job.payload, priority: 2,
                    dedupeKey: "schedules-due:\(job.appID)")
            ])
        }
        if report.fired + report.skipped > 0 {
            logger.debug("schedules fired", metadata: ["fired": "\(report.fired)", "skipped": "\(report.skipped)"])
        }
    }

    /// Fires up to `limit` of `appID`'s due schedules in one transaction.
    public func fireDue(now: Date, appID: Int64) async throws -> Report {
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            let rows = try await connection.query(
                ScheduleStatements.LockDue.query(appID, self.limit), logger: logger)
            var due: [(id: UUID, appID: Int64, push: PushRequest)] = []
            var skipped: [(UUID, String)] = []
            for row in try await rows.collect().map(ScheduleStatements.LockDue.Row.init) {
                let (id, appID, json, live) = (row.id, row.appID, row.push, row.live)
                guard live else {
                    skipped.append((id, "activity_ended"))
                    continue
                }
                // Stored pushes were validated when scheduled; decoding validates them again against this build.
                guard let push = try? JSONDecoder().decode(PushRequest.self, from: Data(json.utf8)) else {
                    skipped.append((id, "invalid_push"))
                    continue
                }
                due.append((id, appID, push))
            }
            // A name's broadcast channel decides each push's route, as for a push posted now; a push whose route no
            // longer holds (its channel was deleted since it was scheduled with delivery broadcast) is skipped.
            var routable: [(id: UUID, appID: Int64, push: PushRequest)] = []
            var channels: [Int64: [String: BroadcastChannelRef]] = [:]
            for (appID, group) in Dictionary(grouping: due, by: \.appID) {
                channels[appID] = try await PostgresBroadcastChannelStore.channels(
                    appID: appID, routing: group.map(\.push)
                ) { try await connection.execute($0, logger: logger) }
            }
            for entry in due {
                let channel = entry.push.liveActivity.name.flatMap { channels[entry.appID]?[$0] }
                if (try? entry.push.route(channel: channel.map { ($0.channelID, $0.storage) })) == nil {
                    skipped.append((entry.id, "invalid_push"))
                } else {
                    routable.append(entry)
                }
            }
            due = routable
            if !skipped.isEmpty {
                try await connection.query(
                    ScheduleStatements.MarkSkipped.query(skipped.map(\.0), skipped.map(\.1)), logger: logger)
            }
            let timestamp = Int64(now.timeIntervalSince1970)
            var fired: [(UUID, UUID)] = []
            for (appID, group) in Dictionary(grouping: due, by: \.appID) {
                let accepted = PushAccepted(operationID: UUID(), pushIDs: group.map { _ in UUID() })
                try await PostgresPushStore.insert(
                    try PostgresPushStore.rows(
                        group.map(\.push), timestamp: timestamp, channels: channels[appID] ?? [:]),
                    accepted: accepted,
                    appID: appID, scheduleIDs: group.map(\.id), on: connection, logger: logger)
                fired += zip(group.map(\.id), accepted.pushIDs).map { ($0, $1) }
            }
            if !fired.isEmpty {
                try await connection.query(
                    ScheduleStatements.MarkFired.query(fired.map(\.0), fired.map(\.1)), logger: logger)
            }
            return Report(fired: fired.count, skipped: skipped.count)
        }
    }
}
