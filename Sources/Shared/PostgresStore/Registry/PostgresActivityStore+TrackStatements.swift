import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// `track` in SQL: one prepared statement reads the channel and its instance under the name and, in the same round
/// trip, makes the write that a start or a rotation needs; a replacement takes one more prepared write. Prepared once
/// per pooled connection, so PostgreSQL neither parses nor plans them per call.
///
/// Each write re-checks, in its own `WHERE`, what the decision is based on (the instance is still current and still
/// this activity). When it is not, or a concurrent start won the unique index, or the channel was forgotten, the
/// call reports the registry changed, and `track` runs it again serialized on the channel row.
extension PostgresActivityStore {
    /// What a track call decided and wrote.
    struct TrackOutcome {
        var decision: ActivityTrackDecision
        /// The instance now current under the name.
        var instanceID: Int64
        /// An instance started that no start push claimed, on a channel that has a push-to-start token for its type:
        /// once committed, `ConfirmStartsStatement` looks again. (Without such a token no start can have been sent
        /// to the channel for that type; a local start there, the common one, costs no statement more: the look
        /// after every unclaimed start cost `bench registry` without pending starts 40% of its calls per second.)
        var unconfirmedStart = false
    }

    /// Runs on `connection` (inside the serialized path's transaction) or, through the batcher, on the pool. What
    /// the call decided, or nil when a write found the registry changed since the read.
    func trackStatements(
        appID: Int64, channelID: UUID, name: String, _ tracking: ActivityTracking, proof: ChannelProof,
        on connection: DatabaseConnection?
    ) async throws -> TrackOutcome? {
        let call = TrackStatement.Call(
            appID: appID, channelID: channelID, name: name, tracking: tracking, proof: proof.statementValue)
        let read: TrackStatement.Found??
        if let connection {
            read = try await Self.run(
                TrackStatement(calls: [call]), on: connection, client: self.database.client, logger: self.logger
            ).map { $0.first?.found }
        } else {
            read = try await self.trackBatcher.track(call)
        }
        guard let read else { return nil }
        guard let found = read else { throw RegistryError.channelNotFound }
        let decision = ActivityTrackDecision.decide(
            current: found.current, requested: tracking, requestedHasEnded: found.requestedHasEnded)
        switch decision {
        case .refuseEnded:
            throw RegistryError.activityEnded(systemActivityID: tracking.systemActivityID)
        case .unchanged:
            return found.current.map { TrackOutcome(decision: decision, instanceID: $0.id) }
        case .start:
            return found.startedID.map {
                TrackOutcome(decision: decision, instanceID: $0, unconfirmedStart: found.startMayBeUnseen)
            }
        case .rotate:
            return found.rotatedID.map { TrackOutcome(decision: decision, instanceID: $0) }
        case .replace(let id):
            let replace = TrackReplaceStatement(
                appID: appID, channelID: channelID, name: name, tracking: tracking, environment: found.environment,
                replacing: id)
            guard
                let rows = try await Self.run(
                    replace, on: connection, client: self.database.client, logger: self.logger)
            else { return nil }
            return rows.first.map {
                TrackOutcome(decision: decision, instanceID: $0.id, unconfirmedStart: $0.mayBeUnseen)
            }
        }
    }

    /// The statement's rows, on `connection` or else on the pool; nil when it hit a unique or foreign-key violation,
    /// that is, when the registry changed under it.
    static func run<Statement: PostgresPreparedStatement>(
        _ statement: Statement, on connection: DatabaseConnection?, client: DatabaseClient, logger: Logger
    ) async throws -> [Statement.Row]? where Statement.Row: Sendable {
        do {
            let rows =
                if let connection {
                    try await connection.execute(statement, logger: logger)
                } else {
                    try await client.execute(statement, logger: logger)
                }
            return rows.elements
        } catch let error where error.isUniqueViolation || error.isForeignKeyViolation {
            return nil
        }
    }
}

/// For each call: the channel (scoped by the call's app) and its current instance under the name, whether the
/// requested activity ended, and the write of the two common decisions: the insert of `ActivityTrackDecision.start`
/// (no current instance, the activity not ended) and the update of `.rotate` (the same activity, and a new token, a
/// new attributes type or an invalidation to undo). The conditions are those of `decide`; the caller decides again
/// from the row and checks that the write it expects happened. Replacements and refusals write nothing here.
///
/// Many calls go in one statement (see `TrackBatcher`), one row per call in their order; no two share a channel and
/// name, so each write is matched back to its call by the instance id or by `(channel_id, name)`. They are calls of
/// one app, `$11`, by which every table is read: on Citus the statement runs on the app's shard (docs/scaling.md).
struct TrackStatement: PostgresPreparedStatement, NamedStatement {
    static let name = "lagw_track_v15"
    static let sql = """
        WITH input AS (
            SELECT x.channel_id, x.app_id, x.name, x.system_activity_id, nullif(x.token, '') AS token,
                   x.attributes_type, nullif(x.broadcast, '') AS broadcast, nullif(x.attributes, '')::jsonb AS attributes,
                   x.proof, x.contract_version, x.n
            FROM unnest($1::uuid[], $2::int8[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                        $8::text[], $9::text[], $10::int4[])
                WITH ORDINALITY AS x(channel_id, app_id, name, system_activity_id, token, attributes_type, broadcast,
                                     attributes, proof, contract_version, n)
        ),
        found AS (
            SELECT x.n, a.apns_environment AS environment, la.id, la.system_activity_id, la.push_token,
                   la.attributes_type, la.state, la.broadcast_channel_id, la.contract_version,
                   -- Probed only when no current instance is this activity (`decide` reads it only then): not for a
                   -- rotation or a retry, most calls (a CASE is evaluated in order).
                   CASE WHEN la.system_activity_id IS DISTINCT FROM x.system_activity_id THEN EXISTS (
                       SELECT 1 FROM live_activities e
                       WHERE e.channel_id = c.id AND e.app_id = $11::int8
                         AND e.system_activity_id = x.system_activity_id
                         AND e.state IN ('ended', 'expired'))
                   ELSE false END AS requested_has_ended
            FROM input x
            JOIN channels c ON c.id = x.channel_id AND c.app_id = x.app_id AND c.app_id = $11::int8
                 AND (x.proof = '' OR c.secret_hash IS NULL OR encode(c.secret_hash, 'hex') = x.proof)
            JOIN apps a ON a.id = c.app_id
            LEFT JOIN live_activities la
                   ON la.channel_id = c.id AND la.app_id = $11::int8 AND la.name = x.name
                     AND la.state IN ('active', 'invalid')
        ),
        rotated AS (
            UPDATE live_activities la
            SET push_token = x.token, broadcast_channel_id = x.broadcast, attributes_type = x.attributes_type,
                attributes = coalesce(x.attributes, la.attributes), contract_version = x.contract_version,
                environment = f.environment,
                state = 'active', invalid_reason = NULL, invalidated_at = NULL, token_updated_at = now()
            FROM found f JOIN input x ON x.n = f.n
            WHERE la.id = f.id AND la.app_id = $11::int8 AND la.system_activity_id = x.system_activity_id
              AND la.state IN ('active', 'invalid')
              AND f.system_activity_id = x.system_activity_id
              AND NOT (f.push_token IS NOT DISTINCT FROM x.token AND f.attributes_type = x.attributes_type
                       AND f.broadcast_channel_id IS NOT DISTINCT FROM x.broadcast AND f.state = 'active'
                       AND f.contract_version = x.contract_version)
            RETURNING la.id
        ),
        started AS (
            INSERT INTO live_activities
                (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment,
                 broadcast_channel_id, attributes, contract_version, start_push_id)
            SELECT $11::int8, x.channel_id, x.name, x.attributes_type, x.system_activity_id, x.token, f.environment,
                   x.broadcast, x.attributes, x.contract_version,
                   (SELECT sa.push_id FROM start_attempts sa
                    WHERE sa.channel_id = x.channel_id AND sa.app_id = $11::int8 AND sa.name = x.name
                      AND sa.attributes_type = x.attributes_type
                      AND sa.outcome = 'pending' AND sa.window_until > now()
                      AND \(StartAttemptBound.pushCreated("sa", windowEndsAfter: "now()"))
                    ORDER BY sa.accepted_at DESC LIMIT 1)
            FROM found f JOIN input x ON x.n = f.n
            WHERE f.id IS NULL AND NOT f.requested_has_ended
            RETURNING id, app_id, channel_id, name, attributes_type, start_push_id
        ),
        confirmed AS (
            -- A push-to-start of this name accepted within the app's window became this activity.
            UPDATE start_attempts sa SET outcome = 'started', started_at = now()
            FROM started st
            WHERE sa.channel_id = st.channel_id AND sa.app_id = $11::int8 AND sa.name = st.name
              AND sa.attributes_type = st.attributes_type
              AND sa.outcome = 'pending' AND sa.window_until > now()
              AND \(StartAttemptBound.pushCreated("sa", windowEndsAfter: "now()"))
        )
        SELECT x.n, f.environment, f.id, f.system_activity_id, f.push_token, f.attributes_type, f.state,
               f.requested_has_ended, r.id, s.id, f.broadcast_channel_id,
               -- Probed only for a start no attempt claimed (a CASE is evaluated in order): not for a rotation.
               CASE WHEN s.id IS NOT NULL AND s.start_push_id IS NULL THEN EXISTS (
                   SELECT 1 FROM push_to_start_tokens p
                   WHERE p.channel_id = x.channel_id AND p.attributes_type = x.attributes_type AND p.app_id = $11::int8)
               ELSE false END
        FROM input x
        LEFT JOIN found f ON f.n = x.n
        LEFT JOIN rotated r ON r.id = f.id
        LEFT JOIN started s ON s.channel_id = x.channel_id AND s.name = x.name
        ORDER BY x.n
        """

    struct Call: Sendable {
        var appID: Int64
        var channelID: UUID
        var name: String
        var tracking: ActivityTracking
        /// `ChannelProof.statementValue`: a device call on a channel with a secret must present it.
        var proof: String = ""
    }

    /// What the statement found and wrote for one call.
    struct Found: Sendable {
        var environment: String
        var current: ActivityTrackDecision.Current?
        /// An ended instance of the channel is the requested activity; false, unprobed, when `current` is it.
        var requestedHasEnded: Bool
        var rotatedID: Int64?
        var startedID: Int64?
        /// The started instance is no start push's yet, and the channel has a push-to-start token for its type: a
        /// start's record may be writing an attempt this statement could not see (`ConfirmStartsStatement`).
        var startMayBeUnseen: Bool
    }

    struct Row: Sendable {
        /// The call's place in `calls`, from 0.
        var index: Int
        /// nil: the channel is not the app's.
        var found: Found?
    }

    var calls: [Call]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 11)
        bindings.append(self.calls.map(\.channelID))
        bindings.append(self.calls.map(\.appID))
        bindings.append(self.calls.map(\.name))
        bindings.append(self.calls.map(\.tracking.systemActivityID))
        bindings.append(self.calls.map(\.tracking.token))
        bindings.append(self.calls.map(\.tracking.attributesType))
        bindings.append(self.calls.map(\.tracking.broadcastChannelID))
        bindings.append(self.calls.map(\.tracking.attributesJSON))
        bindings.append(self.calls.map(\.proof))
        bindings.append(self.calls.map { Int32($0.tracking.contractVersion) })
        bindings.append(self.calls.first?.appID ?? 0)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (n, environment, id, systemID, token, type, state, ended, rotated, started, broadcast, unseen) =
            try row.decode(
                (Int64, String?, Int64?, String?, String?, String?, String?, Bool?, Int64?, Int64?, String?, Bool?)
                    .self)
        guard let environment else { return Row(index: Int(n) - 1, found: nil) }
        var current: ActivityTrackDecision.Current?
        if let id, let systemID, let type, let state {
            current = .init(
                id: id, systemActivityID: systemID, token: token ?? "", attributesType: type,
                isActive: state == "active", broadcastChannelID: broadcast ?? "")
        }
        return Row(
            index: Int(n) - 1,
            found: Found(
                environment: environment, current: current, requestedHasEnded: ended ?? false, rotatedID: rotated,
                startedID: started, startMayBeUnseen: unseen ?? false))
    }
}

/// Ends instance `replacing` as `replaced` and starts this activity under the name, in one statement: nothing starts
/// unless that instance was still current.
struct TrackReplaceStatement: PostgresPreparedStatement, NamedStatement {
    static let name = "lagw_track_replace_v9"
    static let sql = """
        WITH replaced AS (
            UPDATE live_activities SET state = 'ended', ended_reason = 'replaced', ended_at = now()
            WHERE id = $8 AND channel_id = $2 AND state IN ('active', 'invalid')
            RETURNING id
        ),
        inserted AS (
            INSERT INTO live_activities
                (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment,
                 broadcast_channel_id, attributes, contract_version, start_push_id)
            SELECT $1, $2, $3, $4, $5, nullif($6, ''), $7, nullif($9, ''), nullif($10, '')::jsonb, $11::int8,
                   (SELECT sa.push_id FROM start_attempts sa
                    WHERE sa.channel_id = $2 AND sa.app_id = $1 AND sa.name = $3 AND sa.attributes_type = $4
                      AND sa.outcome = 'pending' AND sa.window_until > now()
                      AND \(StartAttemptBound.pushCreated("sa", windowEndsAfter: "now()"))
                    ORDER BY sa.accepted_at DESC LIMIT 1)
            WHERE EXISTS (SELECT 1 FROM replaced)
            RETURNING id, start_push_id
        ),
        confirmed AS (
            -- A push-to-start of this name accepted within the app's window became this activity.
            UPDATE start_attempts SET outcome = 'started', started_at = now()
            WHERE channel_id = $2 AND app_id = $1 AND name = $3 AND attributes_type = $4 AND outcome = 'pending'
              AND window_until > now() AND EXISTS (SELECT 1 FROM inserted)
              AND \(StartAttemptBound.pushCreated("start_attempts", windowEndsAfter: "now()"))
        )
        SELECT id, start_push_id IS NULL AND EXISTS (
                   SELECT 1 FROM push_to_start_tokens WHERE channel_id = $2 AND attributes_type = $4 AND app_id = $1)
        FROM inserted
        """

    var appID: Int64
    var channelID: UUID
    var name: String
    var tracking: ActivityTracking
    var environment: String
    var replacing: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 11)
        bindings.append(self.appID)
        bindings.append(self.channelID)
        bindings.append(self.name)
        bindings.append(self.tracking.attributesType)
        bindings.append(self.tracking.systemActivityID)
        bindings.append(self.tracking.token)
        bindings.append(self.environment)
        bindings.append(self.replacing)
        bindings.append(self.tracking.broadcastChannelID)
        bindings.append(self.tracking.attributesJSON)
        bindings.append(Int32(self.tracking.contractVersion))
        return bindings
    }

    /// The started instance, and whether a start's record may be writing an attempt for it unseen (as `TrackStatement`).
    func decodeRow(_ row: PostgresRow) throws -> (id: Int64, mayBeUnseen: Bool) { try row.decode((Int64, Bool).self) }
}
