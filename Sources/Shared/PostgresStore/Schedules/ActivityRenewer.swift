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
public struct ActivityRenewer: JobHandler {
    public static let kind = JobKind.renew

    let database: Database
    let interval: Duration
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
        try await Recurring.scheduleNext(kind: Self.kind, every: self.interval, after: Date(), database: self.database)
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
    }

    /// One pass: up to `limit` instances renewed. Returns how many.
    public func renew(now: Date) async throws -> Int {
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT la.id, la.app_id, la.channel_id, la.name, la.attributes_type, x.attributes::text,
                       x.content_state::text, coalesce(rt.alert_title, rd.alert_title),
                       coalesce(rt.alert_body, rd.alert_body)
                FROM (SELECT app_id, min(after_seconds) AS soonest FROM renew_policies GROUP BY app_id) rp
                JOIN live_activities la
                  ON la.app_id = rp.app_id AND la.state = 'active' AND la.renewal_id IS NULL
                 AND la.started_at < now() - make_interval(secs => rp.soonest)
                JOIN apps a ON a.id = la.app_id
                LEFT JOIN renew_policies rt ON rt.app_id = la.app_id AND rt.attributes_type = la.attributes_type
                LEFT JOIN renew_policies rd ON rd.app_id = la.app_id AND rd.attributes_type = ''
                CROSS JOIN LATERAL (
                    SELECT coalesce(la.attributes,
                                    (SELECT p.request #> '{notification,ios,live_activity,attributes}'
                                     FROM start_attempts s JOIN pushes p ON p.id = s.push_id
                                     WHERE s.channel_id = la.channel_id AND s.name = la.name AND s.outcome = 'started'
                                     ORDER BY s.started_at DESC LIMIT 1)) AS attributes,
                           (SELECT p.request #> '{notification,ios,live_activity,content_state}'
                            FROM pushes p WHERE p.id = la.last_push_id) AS content_state
                ) x
                WHERE la.environment = a.apns_environment
                  AND coalesce(rt.after_seconds, rd.after_seconds) IS NOT NULL
                  AND la.started_at < now() - make_interval(secs => coalesce(rt.after_seconds, rd.after_seconds))
                  AND la.last_update_at > now() - interval '1 hour'
                  AND x.attributes IS NOT NULL AND x.content_state IS NOT NULL
                ORDER BY la.id
                LIMIT \(self.limit)
                FOR UPDATE OF la SKIP LOCKED
                """,
                logger: logger)
            var due: [Due] = []
            for try await row in rows.decode(
                (Int64, Int64, UUID, String, String, String, String, String, String).self)
            {
                due.append(
                    Due(
                        id: row.0, appID: row.1, channel: row.2, name: row.3, attributesType: row.4, attributes: row.5,
                        contentState: row.6, alert: .init(title: row.7, body: row.8)))
            }
            let timestamp = Int64(now.timeIntervalSince1970)
            for (appID, group) in Dictionary(grouping: due, by: \.appID) {
                try await self.renew(group, appID: appID, timestamp: timestamp, on: connection, logger: logger)
            }
            return due.count
        }
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
            try await connection.query($0, logger: logger)
        }
        let accepted = PushAccepted(operationID: UUID(), pushIDs: pushes.map { _ in UUID() })
        try await PostgresPushStore.insert(
            try PostgresPushStore.rows(pushes, timestamp: timestamp, channels: channels), accepted: accepted,
            appID: appID, on: connection, logger: logger)
        let ends = stride(from: 0, to: accepted.pushIDs.count, by: 2).map { accepted.pushIDs[$0] }
        let starts = stride(from: 1, to: accepted.pushIDs.count, by: 2).map { accepted.pushIDs[$0] }
        try await connection.query(
            """
            WITH made AS (
                INSERT INTO renewals (app_id, channel_id, instance_id, name, end_push_id, start_push_id)
                SELECT \(appID), x.channel_id, x.id, x.name, x.end_id, x.start_id
                FROM unnest(\(group.map(\.channel))::uuid[], \(group.map(\.id))::int8[], \(group.map(\.name))::text[],
                            \(ends)::uuid[], \(starts)::uuid[]) AS x(channel_id, id, name, end_id, start_id)
                RETURNING id, instance_id
            )
            UPDATE live_activities l SET renewal_id = made.id FROM made WHERE l.id = made.instance_id
            """,
            logger: logger)
    }
}
