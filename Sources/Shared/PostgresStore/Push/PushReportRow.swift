import Foundation
import LiveActivitiesCore
import PostgresNIO

/// A row of `PushReportStatement`, each column read by its name.
struct PushReportRow {
    var pushID: UUID
    var operationID: UUID
    var event: String
    var activityName: String?
    var state: PushState
    var failureReason: String?
    var targeted, sent, accepted, failed, skipped, canceled, superseded: Int64
    var failedByReason: String
    var createdAt: Date
    var finishedAt, firstRequestAt: Date?
    var delivery: String
    var broadcastChannelID: String?
    var broadcastStatus: Int32?
    var broadcastReason, apnsUniqueID: String?
    var broadcastSentAt: Date?
    var alreadyActive, startBudget, started, notStarted, startPending, suspectToken, downgraded: Int64
    var startsEnded, startsEndedOnDevice, startsDismissed: Int64?
    var lifetimeMedian, lifetimeP90, lifetimeMax: Double?

    init(_ row: PostgresRow) throws {
        let cells = row.makeRandomAccess()
        func cell<T: PostgresDecodable>(_ column: String, _: T.Type = T.self) throws -> T {
            try cells[column].decode(T.self)
        }
        self.pushID = try cell("push_id")
        self.operationID = try cell("operation_id")
        self.event = try cell("event")
        self.activityName = try cell("activity_name")
        self.state = try cell("state")
        self.failureReason = try cell("failure_reason")
        self.targeted = try cell("targeted")
        self.sent = try cell("sent")
        self.accepted = try cell("accepted")
        self.failed = try cell("failed")
        self.skipped = try cell("skipped")
        self.canceled = try cell("canceled")
        self.superseded = try cell("superseded")
        self.failedByReason = try cell("failed_by_reason")
        self.createdAt = try cell("created_at")
        self.finishedAt = try cell("finished_at")
        self.firstRequestAt = try cell("first_request_at")
        self.delivery = try cell("delivery")
        self.broadcastChannelID = try cell("broadcast_channel_id")
        self.broadcastStatus = try cell("broadcast_status")
        self.broadcastReason = try cell("broadcast_reason")
        self.apnsUniqueID = try cell("apns_unique_id")
        self.broadcastSentAt = try cell("broadcast_sent_at")
        self.alreadyActive = try cell("already_active")
        self.startBudget = try cell("start_budget")
        self.started = try cell("started")
        self.notStarted = try cell("not_started")
        self.startPending = try cell("start_pending")
        self.suspectToken = try cell("suspect_token")
        self.downgraded = try cell("downgraded")
        self.startsEnded = try cell("starts_ended")
        self.startsEndedOnDevice = try cell("starts_ended_on_device")
        self.startsDismissed = try cell("starts_dismissed")
        self.lifetimeMedian = try cell("lifetime_median_seconds")
        self.lifetimeP90 = try cell("lifetime_p90_seconds")
        self.lifetimeMax = try cell("lifetime_max_seconds")
    }

    /// The report the API answers.
    var report: PushReport {
        var report = PushReport(
            pushID: self.pushID, operationID: self.operationID, event: self.event,
            name: self.activityName.flatMap { $0.isEmpty ? nil : $0 }, state: self.state,
            failureReason: self.failureReason,
            counts: .init(
                targeted: self.targeted, sent: self.sent, accepted: self.accepted, failed: self.failed,
                skipped: self.skipped, canceled: self.canceled, superseded: self.superseded),
            failedByReason: (try? JSONDecoder().decode([String: Int64].self, from: Data(self.failedByReason.utf8)))
                ?? [:],
            created: self.createdAt, finished: self.finishedAt, firstRequest: self.firstRequestAt)
        report.delivery = self.delivery
        report.broadcast = self.broadcastChannelID.map {
            PushReport.Broadcast(
                channelID: $0, status: self.broadcastStatus.map(Int.init), reason: self.broadcastReason,
                apnsUniqueID: self.apnsUniqueID, sent: self.broadcastSentAt)
        }
        if self.downgraded > 0 { report.downgraded = self.downgraded }
        if self.event == "start" {
            report.starts = PushReport.Starts(
                alreadyActive: self.alreadyActive, startBudget: self.startBudget, suspectToken: self.suspectToken,
                started: self.started, notStarted: self.notStarted, pending: self.startPending)
            report.starts?.ended = self.startsEnded ?? 0
            report.starts?.endedOnDevice = self.startsEndedOnDevice ?? 0
            report.starts?.dismissed = self.startsDismissed ?? 0
            if let median = self.lifetimeMedian, let p90 = self.lifetimeP90, let max = self.lifetimeMax {
                report.lifetimeSeconds = .init(median: median, p90: p90, max: max)
            }
        }
        return report
    }
}
