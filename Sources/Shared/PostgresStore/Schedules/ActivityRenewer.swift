import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// `maintenance.renew`, recurring: Apple ends an activity 8 hours after it started. An active instance older than its
/// app's `renew` policy (by attributes type, or the app's default) that had an update within the last hour is renewed
/// once: an `end` dismissed at once, and a push-to-start of the same name (`restart`, past the duplicate guard) with
/// the attributes it was started with (the track call's, or its confirmed start's) and its latest update's content
/// state. Both pushes and the `renewals` row are written in one transaction with the instance's `renewal_id`, so an
/// instance is renewed at most once; the new activity replaces it when the device registers it.
public struct ActivityRenewer: RecurringJob {
    public static let kind = JobKind.renew

    let database: Database
    public let interval: Duration
    public var queue: Database { self.database }
    let limit: Int

    public init(database: Database, interval: Duration = .seconds(10), limit: Int = 500) {
        self.database = database
        self.interval = interval
        self.limit = limit
    }

    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        // A renewal reads the rows' `last_update_at` and `last_push_id`: stamps of pushes sent in batches go in first.
        try await DeliveryLedger(database: self.database).foldStampsOfAppsWithPolicies()
        let renewed = try await self.renew(now: Date())
        if renewed > 0 { logger.info("activities renewed", metadata: ["count": "\(renewed)"]) }
        try await self.scheduleNext()
    }

    struct Due {
        var id: Int64
        var appID: Int64
        var channel: UUID
        var name: String
        var attributesType: String
        var attributes: String
        var contentState: String
        var alert: LiveActivityNotification.Alert

        /// A row of `ActivityJobStatements.RenewDue`.
        init(_ row: PostgresRow) throws {
            let (id, appID, channel, name, type, attributes, contentState, title, body) = try row.decode(
                (Int64, Int64, UUID, String, String, String, String, String, String).self)
            (self.id, self.appID, self.channel, self.name) = (id, appID, channel, name)
            (self.attributesType, self.attributes, self.contentState) = (type, attributes, contentState)
            self.alert = .init(title: title, body: body)
        }
    }

    /// One pass: in each app with a renewal policy, up to `limit` instances renewed, one transaction per app
    /// (`AppsWithWork`). Returns how many.
    public func renew(now: Date) async throws -> Int {
        let logger = self.database.logger
        let timestamp = Int64(now.timeIntervalSince1970)
        var renewed = 0
        for appID in try await AppsWithWork.ids(AppsWithWork.WithRenewPolicy.self, in: self.database) {
            renewed += try await self.database.transaction { connection in
                let rows = try await connection.query(
                    ActivityJobStatements.RenewDue.query(self.limit, appID), logger: logger)
                let due = try await rows.collect().map(Due.init)
                if !due.isEmpty {
                    try await self.renew(due, appID: appID, timestamp: timestamp, on: connection, logger: logger)
                }
                return due.count
            }
        }
        return renewed
    }

    /// Writes each instance's end and start (in that order), its `renewals` row and its `renewal_id`.
    private func renew(
        _ group: [Due], appID: Int64, timestamp: Int64, on connection: DatabaseConnection, logger: Logger
    ) async throws {
        let decoder = JSONDecoder()
        var pushes: [PushRequest] = []
        for activity in group {
            let audience = Audience.channels([activity.channel])
            pushes.append(
                PushRequest(
                    audience: audience,
                    liveActivity: LiveActivityNotification(event: .end, name: activity.name, dismissalDate: timestamp),
                    campaignCategories: ["renewal"]))
            var start = LiveActivityNotification(
                event: .start, name: activity.name, attributesType: activity.attributesType,
                attributes: try decoder.decode([String: JSONValue].self, from: Data(activity.attributes.utf8)),
                contentState: try decoder.decode([String: JSONValue].self, from: Data(activity.contentState.utf8)),
                alert: activity.alert)
            start.restart = true
            pushes.append(PushRequest(audience: audience, liveActivity: start, campaignCategories: ["renewal"]))
        }
        let channels = try await PostgresBroadcastChannelStore.channels(appID: appID, routing: pushes) {
            try await connection.execute($0, logger: logger)
        }
        let accepted = PushAccepted(operationID: UUID(), pushIDs: pushes.map { _ in UUID() })
        try await PostgresPushStore.insert(
            try PostgresPushStore.rows(pushes, timestamp: timestamp, channels: channels), accepted: accepted,
            appID: appID, on: connection, logger: logger)
        let ends = stride(from: 0, to: accepted.pushIDs.count, by: 2).map { accepted.pushIDs[$0] }
        let starts = stride(from: 1, to: accepted.pushIDs.count, by: 2).map { accepted.pushIDs[$0] }
        try await connection.query(
            ActivityJobStatements.InsertRenewals.query(
                appID, group.map(\.channel), group.map(\.id), group.map(\.name), ends, starts),
            logger: logger)
    }
}
