import Foundation
import LiveActivitiesCore
import PostgresNIO

/// The tokens a push targets: the active instances of `name` (update, end) or the push-to-start tokens of an
/// attributes type (start), of the app's current environment, on channels in the audience with live activities
/// enabled. Rows are keyed and ordered by channel id (one target per channel), which is how batches split.
public struct PushTargets: Sendable {
    public var appID: Int64
    public var event: LiveActivityNotification.Event
    public var name: String?
    public var attributesType: String?
    public var audience: Audience
    /// With delivery `both`: instances subscribed to this broadcast channel get the broadcast, not a token request.
    public var broadcastChannelID: String?
    /// A start sent even where the name is active or a start of it is still unconfirmed (`TargetHold.alreadyActive`).
    public var restart = false
    /// For a priority-10 update: the app's update budgets by attributes type ("" for its default), if it has any.
    public var updateBudgets: [String: Int] = [:]

    public init(
        appID: Int64, event: LiveActivityNotification.Event, name: String?, attributesType: String?, audience: Audience
    ) {
        self.appID = appID
        self.event = event
        self.name = name
        self.attributesType = attributesType
        self.audience = audience
    }

    var isStart: Bool { self.event == .start }

    /// `FROM ... WHERE ...` selecting targets as `t`, for the chunk selects (`chunkSelect`), whose shapes are composed
    /// here; it says what each variant of `TargetStatements` says in full (the two must agree).
    func source(_ sql: inout SQLBuilder) -> String {
        let app = sql.bind(self.appID)
        let enabled =
            "NOT EXISTS (SELECT 1 FROM channels d WHERE d.id = t.channel_id AND d.app_id = t.app_id"
            + " AND NOT d.live_activities_enabled)"
        if self.isStart {
            return """
                FROM push_to_start_tokens t
                JOIN apps a ON a.id = t.app_id
                WHERE t.app_id = \(app) AND t.attributes_type = \(sql.bind(self.attributesType ?? ""))
                  AND t.state = 'active' AND t.environment = a.apns_environment AND \(enabled)
                  AND \(self.audience.predicate(&sql, app: app))
                """
        }
        // Instances tracked as subscribed to a broadcast channel may have no token: only a broadcast reaches them.
        let subscribed = self.broadcastChannelID.map { " AND t.broadcast_channel_id IS DISTINCT FROM \(sql.bind($0))" }
        return """
            FROM live_activities t
            WHERE t.app_id = \(app) AND t.name = \(sql.bind(self.name ?? "")) AND t.state = 'active'
              AND t.push_token IS NOT NULL\(subscribed ?? "")
              AND t.environment = (SELECT apns_environment FROM apps WHERE id = \(app))
              AND t.started_at > now() - (SELECT activity_max_age FROM apps WHERE id = \(app)) AND \(enabled)
              AND \(self.audience.predicate(&sql, app: app))
            """
    }

    /// Splits the targets into batches of about `batchSize` by channel id: equal-width ranges of the id space sized
    /// from the first `sampled` targets, which reached `reach` (`BatchPlan.uniformThresholds`), and one pass that
    /// counts the targets in each range. Channel ids that are not spread evenly (a range with more than twice
    /// `batchSize`) get exact boundaries instead, every `batchSize`-th id by rank, which sorts every target.
    public func batchPlan(batchSize: Int, sampled: Int, reach: UUID, on client: DatabaseClient, logger: Logger)
        async throws -> BatchPlan
    {
        let thresholds = BatchPlan.uniformThresholds(sampled: sampled, reach: reach, batchSize: batchSize)
        let query = self.query(
            instances: TargetStatements.PlanInstances.self,
            besideBroadcast: TargetStatements.PlanInstancesBesideBroadcast.self,
            startTokens: TargetStatements.PlanStartTokens.self
        ) { $0.append(thresholds) }
        var counts: [Int: Int] = [:]
        for try await row in try await client.query(query, logger: logger) {
            let range = try TargetStatements.PlanRow(row)
            counts[range.range] = range.count
        }
        let plan = BatchPlan.merging(thresholds: thresholds, counts: counts)
        guard plan.sizes.contains(where: { $0 > 2 * batchSize }) else { return plan }
        return try await self.batchPlanByRank(batchSize: batchSize, on: client, logger: logger)
    }

    /// Every `batchSize`-th channel id in order (the batch boundaries), and the batch sizes.
    func batchPlanByRank(batchSize: Int, on client: DatabaseClient, logger: Logger) async throws -> BatchPlan {
        let query = self.query(
            instances: TargetStatements.PlanInstancesByRank.self,
            besideBroadcast: TargetStatements.PlanInstancesBesideBroadcastByRank.self,
            startTokens: TargetStatements.PlanStartTokensByRank.self
        ) { $0.append(batchSize) }
        var boundaries: [UUID] = []
        var total = 0
        for try await row in try await client.query(query, logger: logger) {
            let ranked = try TargetStatements.RankRow(row)
            total = Int(ranked.total)
            if ranked.rank < ranked.total { boundaries.append(ranked.channelID) }
        }
        guard total > 0 else { return .empty }
        let last = total - batchSize * boundaries.count
        let sizes = (0...boundaries.count).map { $0 < boundaries.count ? batchSize : last }
        return BatchPlan(boundaries: boundaries, sizes: sizes)
    }

    /// How many targets there are now (for cancelling a push that has not fanned out yet).
    public func count(on connection: DatabaseConnection, logger: Logger) async throws -> Int {
        let query = self.query(
            instances: TargetStatements.CountInstances.self,
            besideBroadcast: TargetStatements.CountInstancesBesideBroadcast.self,
            startTokens: TargetStatements.CountStartTokens.self)
        for try await row in try await connection.query(query, logger: logger) {
            return try TargetStatements.CountRow(row).count
        }
        return 0
    }

    /// The variant of a `TargetStatements` statement that fits these targets, with its parameters: the app, the name
    /// (or the attributes type of start tokens), the broadcast channel whose subscribers the variant leaves out, then
    /// what `then` appends, then the audience's.
    func query(
        instances: any AudienceStatement.Type, besideBroadcast: any AudienceStatement.Type,
        startTokens: any AudienceStatement.Type, then append: (inout PostgresBindings) -> Void = { _ in }
    ) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(self.appID)
        let statement: any AudienceStatement.Type
        if self.isStart {
            binds.append(self.attributesType ?? "")
            statement = startTokens
        } else if let channel = self.broadcastChannelID {
            binds.append(self.name ?? "")
            binds.append(channel)
            statement = besideBroadcast
        } else {
            binds.append(self.name ?? "")
            statement = instances
        }
        append(&binds)
        return statement.query(binds, audience: self.audience)
    }

    public struct Target: Sendable, Equatable {
        public var channelID: UUID
        /// The live-activity instance (0 for push-to-start tokens).
        public var instanceID: Int64
        /// Where the instance's row was when it was read (its `ctid`, "" for push-to-start tokens): the delivery stamp
        /// goes there directly, and by `instanceID` only if the row has moved since (a rotation wrote a new version).
        public var row: String
        public var token: String
        /// The APNs timestamp of the last update sent to the instance.
        public var lastTimestamp: Int64?
        /// The acceptance order (`pushes.seq`) of that update.
        public var lastSeq: Int64?
        /// What the select decided before the send: a start held back, or an update's priority under its budget.
        public var hold: TargetHold = .none

        public init(
            channelID: UUID, instanceID: Int64, row: String = "", token: String, lastTimestamp: Int64? = nil,
            lastSeq: Int64? = nil, hold: TargetHold = .none
        ) {
            self.channelID = channelID
            self.instanceID = instanceID
            self.row = row
            self.token = token
            self.lastTimestamp = lastTimestamp
            self.lastSeq = lastSeq
            self.hold = hold
        }

        /// The place of the last push sent to the instance in `PushOrder`, if one was.
        public var lastSent: PushOrder? {
            self.lastTimestamp.map { PushOrder(timestamp: $0, seq: self.lastSeq ?? 0) }
        }
    }

    /// The next `limit` targets with channel ids in (after, upTo]. Rows are decoded column by column (`Target(_:)`).
    /// `blocked`: another push's pending stamps could make one of them skip the push `sentBy` (its id and APNs
    /// timestamp; see `DeliveryLedger.chunk(of:after:upTo:limit:)`).
    /// `rowRefs`: read each row's place (`Target.row`), which takes the row from the heap; without it the select reads
    /// the covering index alone (`sql/0025_covering_targets.sql`), and a stamp goes by id.
    public func chunk(
        after: UUID?, upTo: UUID?, limit: Int, sentBy push: (id: UUID, order: PushOrder)? = nil, rowRefs: Bool = true,
        on client: DatabaseClient, logger: Logger
    ) async throws -> (targets: [Target], blocked: Bool) {
        var targets: [Target] = []
        targets.reserveCapacity(limit)
        var blocked = false
        if !rowRefs, let push,
            let statement = BatchChunkStatement(self, after: after, upTo: upTo, limit: limit, sentBy: push)
        {
            for try await row in try await client.execute(statement, logger: logger) {
                targets.append(row.target)
                blocked = row.blocked
            }
            return (targets, blocked)
        }
        var sql = SQLBuilder()
        let select = self.chunkSelect(
            &sql, after: after, upTo: upTo, limit: limit, sentBy: push, rowRefs: rowRefs)
        let rows = try await client.query(PostgresQuery(unsafeSQL: select, binds: sql.binds), logger: logger)
        for try await row in rows {
            let decoded = try Target.decode(row)
            targets.append(decoded.target)
            blocked = decoded.blocked
        }
        return (targets, blocked)
    }

    /// The select of the next `limit` targets with channel ids in (after, upTo], in channel order; its columns are
    /// `channel_id, instance_id, row_ref, token, last_timestamp, last_seq, hold`, as `Target` has them, then `blocked`:
    /// whether another push of the same name left pending stamps newer in `PushOrder` than the push `sentBy`, in rows
    /// whose channels meet the range (evaluated once; false without `sentBy`).
    func chunkSelect(
        _ sql: inout SQLBuilder, after: UUID?, upTo: UUID?, limit: Int, sentBy push: (id: UUID, order: PushOrder)?,
        rowRefs: Bool = true
    ) -> String {
        let source = self.source(&sql)
        var range = ""
        if let after { range += " AND t.channel_id > \(sql.bind(after))" }
        if let upTo { range += " AND t.channel_id <= \(sql.bind(upTo))" }
        var blocked = "false"
        if !self.isStart, let name = self.name, let push {
            blocked = """
                EXISTS (SELECT 1 FROM delivery_stamps s WHERE s.app_id = \(sql.bind(self.appID))
                    AND s.activity_name = \(sql.bind(name)) AND s.apns_timestamp >= \(sql.bind(push.order.timestamp))
                    AND (s.apns_timestamp, s.push_seq) > (\(sql.bind(push.order.timestamp)), \(sql.bind(push.order.seq)))\(
                    after.map { " AND s.last_channel > \(sql.bind($0))" } ?? "")\(
                    upTo.map { " AND s.first_channel <= \(sql.bind($0))" } ?? ""))
                """
        }
        if self.isStart {
            return self.startChunkSelect(&sql, source: source, range: range, limit: limit, pushID: push?.id)
        }
        let hold = self.updateBudgets.isEmpty ? "0" : self.updateHold(&sql)
        let columns =
            "t.channel_id, t.id AS instance_id, \(rowRefs ? "t.ctid::text" : "''::text") AS row_ref,"
            + " t.push_token AS token,"
            + " t.last_apns_timestamp AS last_timestamp, t.last_push_seq AS last_seq, (\(hold))::int2 AS hold"
        return """
            SELECT \(columns), \(blocked) AS blocked \(source)\(range) ORDER BY t.channel_id LIMIT \(sql.bind(limit))
            """
    }
}

extension PushTargets {
    /// `TargetHold` of an update's target `t` under the app's update budgets (the instance's attributes type, else the
    /// app's default): `downgrade` past it in the instance's current hour, else `budgeted`.
    func updateHold(_ sql: inout SQLBuilder) -> String {
        let types = sql.bind(Array(self.updateBudgets.keys))
        let limits = sql.bind(self.updateBudgets.keys.map { Int32(self.updateBudgets[$0]!) })
        let limit =
            "coalesce((\(limits)::int4[])[array_position(\(types)::text[], t.attributes_type)], "
            + "(\(limits)::int4[])[array_position(\(types)::text[], '')])"
        return """
            CASE WHEN \(limit) IS NULL THEN 0
                 WHEN t.p10_hour_start > now() - interval '1 hour' AND t.p10_count >= \(limit)
                 THEN \(TargetHold.downgrade.rawValue)
                 ELSE \(TargetHold.budgeted.rawValue) END
            """
    }
}

extension PushTargets.Target {
    /// A target from the columns `chunkSelect` answers, decoded one concrete type at a time, with the `blocked` column
    /// and, when the row has one more, that column as an `Int64` (nil when NULL). Decoding the row as a tuple
    /// (`decode((UUID, Int64, ...).self)`) looked up the tuple's generic metadata for every row: 11% of a sending
    /// worker's CPU in a `perf` profile of the million-activity fan-out.
    static func decode(_ row: PostgresRow) throws -> (target: Self, blocked: Bool, extra: Int64?) {
        var cells = row.makeIterator()
        func next() throws -> PostgresCell {
            guard let cell = cells.next() else { throw PostgresTargetRowError() }
            return cell
        }
        let target = Self(
            channelID: try next().decode(UUID.self), instanceID: try next().decode(Int64.self),
            row: try next().decode(String.self), token: try next().decode(String.self),
            lastTimestamp: try next().decode(Int64?.self), lastSeq: try next().decode(Int64?.self),
            hold: TargetHold(rawValue: Int(try next().decode(Int16.self))) ?? .none)
        let blocked = try next().decode(Bool.self)
        return (target, blocked, try cells.next()?.decode(Int64?.self) ?? nil)
    }
}

/// A chunk's row had fewer columns than a target needs (a programming error in `chunkSelect`).
struct PostgresTargetRowError: Error {}
