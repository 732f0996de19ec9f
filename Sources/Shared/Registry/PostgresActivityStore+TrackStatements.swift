import Foundation
import PostgresNIO

/// `track` in SQL: one prepared statement reads the channel and its instance under the name and, in the same round
/// trip, makes the write that a start or a rotation needs; a replacement takes one more prepared write. Prepared once
/// per pooled connection, so PostgreSQL neither parses nor plans them per call.
///
/// Each write re-checks, in its own `WHERE`, what the decision is based on (the instance is still current and still
/// this activity). When it is not, or a concurrent start won the unique index, or the channel was forgotten, the
/// call reports the registry changed, and `track` runs it again serialized on the channel row.
extension PostgresActivityStore {
    /// Runs on `connection` (inside the serialized path's transaction) or on the pool. The decision and the instance
    /// now current under the name, or nil when a write found the registry changed since the read.
    func trackStatements(
        appID: Int64, channelID: UUID, name: String, _ tracking: ActivityTracking, on connection: PostgresConnection?
    ) async throws -> (decision: ActivityTrackDecision, instanceID: Int64)? {
        let statement = TrackStatement(appID: appID, channelID: channelID, name: name, tracking: tracking)
        guard let found = try await self.first(statement, on: connection) else { return nil }
        guard let found else { throw RegistryError.channelNotFound }
        let decision = ActivityTrackDecision.decide(
            current: found.current, requested: tracking, requestedHasEnded: found.requestedHasEnded)
        switch decision {
        case .refuseEnded:
            throw RegistryError.activityEnded(systemActivityID: tracking.systemActivityID)
        case .unchanged:
            return found.current.map { (decision, $0.id) }
        case .start:
            return found.startedID.map { (decision, $0) }
        case .rotate:
            return found.rotatedID.map { (decision, $0) }
        case .replace(let id):
            let replace = TrackReplaceStatement(
                appID: appID, channelID: channelID, name: name, tracking: tracking, environment: found.environment,
                replacing: id)
            guard let started = try await self.first(replace, on: connection) else { return nil }
            return started.map { (decision, $0) }
        }
    }

    /// The statement's one row (nil inside when there is none); nil when it hit a unique or foreign-key violation,
    /// that is, when the registry changed under it.
    private func first<Statement: PostgresPreparedStatement>(_ statement: Statement, on connection: PostgresConnection?)
        async throws -> Statement.Row??
    {
        do {
            let rows =
                if let connection {
                    try await connection.execute(statement, logger: self.logger)
                } else {
                    try await self.database.client.execute(statement, logger: self.logger)
                }
            var first: Statement.Row?
            for try await row in rows where first == nil { first = row }
            return .some(first)
        } catch let error where error.isUniqueViolation || error.isForeignKeyViolation {
            return nil
        }
    }
}

/// The channel (scoped by app) and its current instance under the name, whether the requested activity ended, and
/// the write of the two common decisions: the insert of `ActivityTrackDecision.start` (no current instance, the
/// activity not ended) and the update of `.rotate` (the same activity, and a new token, a new attributes type or
/// an invalidation to undo). The conditions are those of `decide`; the caller decides again from the row and checks
/// that the write it expects happened. Replacements and refusals write nothing here.
struct TrackStatement: PostgresPreparedStatement {
    static let name = "lagw_track_v2"
    static let sql = """
        WITH found AS (
            SELECT a.apns_environment AS environment, la.id, la.system_activity_id, la.push_token,
                   la.attributes_type, la.state,
                   EXISTS (SELECT 1 FROM live_activities e
                           WHERE e.channel_id = c.id AND e.system_activity_id = $4
                             AND e.state IN ('ended', 'expired')) AS requested_has_ended
            FROM channels c
            JOIN apps a ON a.id = c.app_id
            LEFT JOIN live_activities la
                   ON la.channel_id = c.id AND la.name = $3 AND la.state IN ('active', 'invalid')
            WHERE c.id = $1 AND c.app_id = $2
        ),
        rotated AS (
            UPDATE live_activities la
            SET push_token = $5, attributes_type = $6, environment = found.environment, state = 'active',
                invalid_reason = NULL, invalidated_at = NULL, token_updated_at = now()
            FROM found
            WHERE la.id = found.id AND la.system_activity_id = $4 AND la.state IN ('active', 'invalid')
              AND found.system_activity_id = $4
              AND NOT (found.push_token = $5 AND found.attributes_type = $6 AND found.state = 'active')
            RETURNING la.id
        ),
        started AS (
            INSERT INTO live_activities
                (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment)
            SELECT $2, $1, $3, $6, $4, $5, found.environment FROM found
            WHERE found.id IS NULL AND NOT found.requested_has_ended
            RETURNING id
        )
        SELECT found.*, (SELECT id FROM rotated), (SELECT id FROM started) FROM found
        """

    struct Row: Sendable {
        var environment: String
        var current: ActivityTrackDecision.Current?
        var requestedHasEnded: Bool
        var rotatedID: Int64?
        var startedID: Int64?
    }

    var appID: Int64
    var channelID: UUID
    var name: String
    var tracking: ActivityTracking

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(self.channelID)
        bindings.append(self.appID)
        bindings.append(self.name)
        bindings.append(self.tracking.systemActivityID)
        bindings.append(self.tracking.token)
        bindings.append(self.tracking.attributesType)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (environment, id, systemID, token, type, state, ended, rotated, started) = try row.decode(
            (String, Int64?, String?, String?, String?, String?, Bool, Int64?, Int64?).self)
        var current: ActivityTrackDecision.Current?
        if let id, let systemID, let token, let type, let state {
            current = .init(
                id: id, systemActivityID: systemID, token: token, attributesType: type, isActive: state == "active")
        }
        return Row(
            environment: environment, current: current, requestedHasEnded: ended, rotatedID: rotated,
            startedID: started)
    }
}

/// Ends instance `replacing` as `replaced` and starts this activity under the name, in one statement: nothing starts
/// unless that instance was still current.
struct TrackReplaceStatement: PostgresPreparedStatement {
    static let name = "lagw_track_replace_v1"
    static let sql = """
        WITH replaced AS (
            UPDATE live_activities SET state = 'ended', ended_reason = 'replaced', ended_at = now()
            WHERE id = $8 AND channel_id = $2 AND state IN ('active', 'invalid')
            RETURNING id
        )
        INSERT INTO live_activities
            (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment)
        SELECT $1, $2, $3, $4, $5, $6, $7
        WHERE EXISTS (SELECT 1 FROM replaced)
        RETURNING id
        """

    var appID: Int64
    var channelID: UUID
    var name: String
    var tracking: ActivityTracking
    var environment: String
    var replacing: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(self.appID)
        bindings.append(self.channelID)
        bindings.append(self.name)
        bindings.append(self.tracking.attributesType)
        bindings.append(self.tracking.systemActivityID)
        bindings.append(self.tracking.token)
        bindings.append(self.environment)
        bindings.append(self.replacing)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
}
