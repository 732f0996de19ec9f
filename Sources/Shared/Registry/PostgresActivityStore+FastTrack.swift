import Foundation
import PostgresNIO

/// The hot path of `track`: one prepared statement that reads the channel and its instance under the name and, in
/// the same round trip, makes the write that a start or a rotation needs (see `TrackStatement`). A replacement
/// takes one more prepared write. Prepared once per pooled connection, so PostgreSQL neither parses nor plans them
/// per call.
///
/// Nothing is locked. Each write re-checks, in its own `WHERE`, what the decision is based on (the instance is
/// still current and still this activity); when it is not, or a concurrent start won the unique index, the caller
/// falls back to the serialized path (`FOR NO KEY UPDATE` of the channel in a transaction).
extension PostgresActivityStore {
    /// Nil when a write found the registry changed since the read (the caller takes the locked path).
    func trackFast(appID: Int64, channelID: UUID, name: String, _ tracking: ActivityTracking) async throws
        -> ActivityTrackDecision?
    {
        let statement = TrackStatement(
            read: .init(channelID: channelID, appID: appID, name: name, systemActivityID: tracking.systemActivityID),
            token: tracking.token, attributesType: tracking.attributesType)
        var found: TrackStatement.Row?
        do {
            for try await row in try await self.database.client.execute(statement, logger: self.logger) { found = row }
        } catch let error where error.isUniqueViolation || error.isForeignKeyViolation {
            return nil
        }
        let (decision, write) = try Self.plan(found?.read, appID: appID, channelID: channelID, name: name, tracking)
        switch decision {
        case .unchanged, .refuseEnded: return decision
        case .start: return found?.startedID == nil ? nil : decision
        case .rotate: return found?.rotatedID == nil ? nil : decision
        case .replace:
            guard let write else { return decision }
            return try await self.run(write, on: nil) == nil ? nil : decision
        }
    }

    /// The decision for what the read found, and the one guarded write it needs (none for `unchanged`).
    static func plan(
        _ found: TrackReadStatement.Row?, appID: Int64, channelID: UUID, name: String, _ tracking: ActivityTracking
    ) throws -> (ActivityTrackDecision, TrackWrite?) {
        guard let found else { throw RegistryError.channelNotFound }
        let decision = ActivityTrackDecision.decide(
            current: found.current, requested: tracking, requestedHasEnded: found.requestedHasEnded)
        switch decision {
        case .unchanged:
            return (decision, nil)
        case .refuseEnded:
            throw RegistryError.activityEnded(systemActivityID: tracking.systemActivityID)
        case .rotate(let id):
            return (
                decision,
                .rotate(
                    TrackRotateStatement(
                        instanceID: id, systemActivityID: tracking.systemActivityID, token: tracking.token,
                        attributesType: tracking.attributesType, environment: found.environment))
            )
        case .start, .replace:
            var replacing: Int64 = 0
            if case .replace(let id) = decision { replacing = id }
            return (
                decision,
                .start(
                    TrackStartStatement(
                        appID: appID, channelID: channelID, name: name, tracking: tracking,
                        environment: found.environment, replacing: replacing))
            )
        }
    }

    /// Runs the write on `connection` (inside the locked path's transaction) or on the pool; the instance id it
    /// wrote, or nil when the registry changed since the read (a row no longer current, a concurrent start under
    /// the name, or the channel forgotten).
    func run(_ write: TrackWrite, on connection: PostgresConnection?) async throws -> Int64? {
        do {
            let rows: AsyncThrowingMapSequence<PostgresRowSequence, Int64>
            let client = self.database.client
            switch (write, connection) {
            case (.rotate(let statement), nil): rows = try await client.execute(statement, logger: self.logger)
            case (.rotate(let statement), let c?): rows = try await c.execute(statement, logger: self.logger)
            case (.start(let statement), nil): rows = try await client.execute(statement, logger: self.logger)
            case (.start(let statement), let c?): rows = try await c.execute(statement, logger: self.logger)
            }
            var id: Int64?
            for try await row in rows { id = row }
            return id
        } catch let error where error.isUniqueViolation || error.isForeignKeyViolation {
            return nil
        }
    }
}

/// The one write a track decision needs.
enum TrackWrite: Sendable {
    case rotate(TrackRotateStatement)
    case start(TrackStartStatement)
}

/// The channel (scoped by app), its current instance under the name, and whether the requested activity ended.
struct TrackReadStatement: PostgresPreparedStatement {
    static let name = "lagw_track_read_v1"
    static let sql = selectList
    static let selectList = """
        SELECT a.apns_environment AS environment, la.id, la.system_activity_id, la.push_token, la.attributes_type,
               la.state,
               EXISTS (SELECT 1 FROM live_activities e
                       WHERE e.channel_id = c.id AND e.system_activity_id = $4 AND e.state IN ('ended', 'expired'))
                   AS requested_has_ended
        FROM channels c
        JOIN apps a ON a.id = c.app_id
        LEFT JOIN live_activities la ON la.channel_id = c.id AND la.name = $3 AND la.state IN ('active', 'invalid')
        WHERE c.id = $1 AND c.app_id = $2
        """

    struct Row: Sendable {
        var environment: String
        var current: ActivityTrackDecision.Current?
        var requestedHasEnded: Bool
    }

    var channelID: UUID
    var appID: Int64
    var name: String
    var systemActivityID: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(self.channelID)
        bindings.append(self.appID)
        bindings.append(self.name)
        bindings.append(self.systemActivityID)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (environment, id, systemID, token, type, state, ended) = try row.decode(
            (String, Int64?, String?, String?, String?, String?, Bool).self)
        return Self.row(environment, id, systemID, token, type, state, ended)
    }

    static func row(
        _ environment: String, _ id: Int64?, _ systemID: String?, _ token: String?, _ type: String?, _ state: String?,
        _ ended: Bool
    ) -> Row {
        var current: ActivityTrackDecision.Current?
        if let id, let systemID, let token, let type, let state {
            current = .init(
                id: id, systemActivityID: systemID, token: token, attributesType: type, isActive: state == "active")
        }
        return Row(environment: environment, current: current, requestedHasEnded: ended)
    }
}

/// The read of `TrackReadStatement` with, in the same statement, the write of the two common decisions: the insert
/// of `ActivityTrackDecision.start` (no current instance, the activity not ended) and the update of `.rotate` (the
/// same activity, and a new token, a new attributes type or an invalidation to undo). The conditions are those of
/// `decide`; the caller decides again from the row and checks the write it expects happened. Replacements and
/// refusals write nothing here.
struct TrackStatement: PostgresPreparedStatement {
    static let name = "lagw_track_v1"
    static let sql = """
        WITH found AS (\(TrackReadStatement.selectList)),
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
        var read: TrackReadStatement.Row
        var rotatedID: Int64?
        var startedID: Int64?
    }

    var read: TrackReadStatement
    var token: String
    var attributesType: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = try self.read.makeBindings()
        bindings.append(self.token)
        bindings.append(self.attributesType)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (environment, id, systemID, token, type, state, ended, rotated, started) = try row.decode(
            (String, Int64?, String?, String?, String?, String?, Bool, Int64?, Int64?).self)
        return Row(
            read: TrackReadStatement.row(environment, id, systemID, token, type, state, ended), rotatedID: rotated,
            startedID: started)
    }
}

/// The same read, locking the channel row: concurrent calls for one channel apply one after the other.
struct TrackReadLockedStatement: PostgresPreparedStatement {
    static let name = "lagw_track_read_locked_v1"
    static let sql = TrackReadStatement.sql + "\nFOR NO KEY UPDATE OF c"

    var read: TrackReadStatement

    func makeBindings() throws -> PostgresBindings { try self.read.makeBindings() }
    func decodeRow(_ row: PostgresRow) throws -> TrackReadStatement.Row { try self.read.decodeRow(row) }
}

/// A new token or attributes type for the current instance, only if it is still current and still this activity.
struct TrackRotateStatement: PostgresPreparedStatement {
    static let name = "lagw_track_rotate_v1"
    static let sql = """
        UPDATE live_activities
        SET push_token = $3, attributes_type = $4, environment = $5, state = 'active', invalid_reason = NULL,
            invalidated_at = NULL, token_updated_at = now()
        WHERE id = $1 AND system_activity_id = $2 AND state IN ('active', 'invalid')
        RETURNING id
        """

    var instanceID: Int64
    var systemActivityID: String
    var token: String
    var attributesType: String
    var environment: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(self.instanceID)
        bindings.append(self.systemActivityID)
        bindings.append(self.token)
        bindings.append(self.attributesType)
        bindings.append(self.environment)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
}

/// Starts an instance; with `replacing` (an instance id, 0 for none) that instance ends as `replaced` in the
/// same statement, and nothing starts unless it was still current.
struct TrackStartStatement: PostgresPreparedStatement {
    static let name = "lagw_track_start_v1"
    static let sql = """
        WITH replaced AS (
            UPDATE live_activities SET state = 'ended', ended_reason = 'replaced', ended_at = now()
            WHERE id = $8 AND channel_id = $2 AND state IN ('active', 'invalid')
            RETURNING id
        )
        INSERT INTO live_activities
            (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment)
        SELECT $1, $2, $3, $4, $5, $6, $7
        WHERE $8 = 0 OR EXISTS (SELECT 1 FROM replaced)
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
