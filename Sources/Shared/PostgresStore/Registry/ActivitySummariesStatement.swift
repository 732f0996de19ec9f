import Foundation
import PostgresNIO

/// The tracked instances a channel lookup lists, as a prepared statement (see `ChannelLookupStatement`). The last
/// update's time includes stamps still pending (`PendingStamps`).
struct ActivitySummariesStatement: ChannelScopedStatement, NamedStatement {
    static let name = "lagw_activity_summaries_v3"
    static let sql = """
        SELECT la.name, la.attributes_type, la.system_activity_id,
               CASE WHEN la.state = 'active' AND la.started_at <= now() - a.activity_max_age THEN 'expired'
                    ELSE la.state END,
               la.started_at, \(PendingStamps.lastUpdate(of: "la"))
        FROM live_activities la JOIN apps a ON a.id = la.app_id
        WHERE la.channel_id = $1 AND la.app_id = $2 AND la.state IN ('active', 'invalid')
        ORDER BY la.name
        """
    struct Row: Sendable {
        var name: String
        var attributesType: String
        var systemActivityID: String
        /// `expired` for an active instance past its app's maximum age.
        var state: String
        var started: Date
        var lastUpdate: Date?
    }

    var channelID: UUID
    var appID: Int64

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (name, type, systemID, state, started, lastUpdate) = try row.decode(
            (String, String, String, String, Date, Date?).self)
        return Row(
            name: name, attributesType: type, systemActivityID: systemID, state: state, started: started,
            lastUpdate: lastUpdate)
    }
}
