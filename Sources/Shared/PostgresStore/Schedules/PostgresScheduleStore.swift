import Foundation
import LiveActivitiesCore
import Logging
import PostgresDatabase
import PostgresNIO

public struct PostgresScheduleStore: ScheduleStore {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    private var logger: Logger { self.database.logger }

    static func json(_ push: PushRequest) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(push), as: UTF8.self)
    }

    static func fireJob(appID: Int64, id: UUID, at sendAt: Date) throws -> JobRequest {
        try JobRequest(
            ScheduleFireJob(scheduleID: id), appID: appID, runAt: sendAt, priority: 2,
            dedupeKey: ScheduleFireJob.dedupeKey(id))
    }

    public func create(appID: Int64, _ requests: [ScheduleRequest], now: Date) async throws -> [(
        id: UUID, sendAt: Date
    )] {
        var rows: [(UUID, Date, String?, String)] = []
        for (index, request) in requests.enumerated() {
            let prefix = requests.count > 1 ? "[\(index)]." : ""
            let sendAt = try request.time.resolve(now: now, path: prefix + request.timePath())
            // A scheduled push's own timestamp is bounded by its send time.
            try request.push.checkTimestamp(sentAt: sendAt, prefix: prefix + "push.")
            rows.append((UUID(), sendAt, request.name, try Self.json(request.push)))
        }
        try await self.database.transaction { connection in
            try await Quotas.checkSchedules(appID: appID, adding: rows.count, on: connection, logger: self.logger)
            try await connection.query(
                ScheduleStatements.InsertAPI.query(
                    appID, rows.map(\.0), rows.map { $0.2 ?? "" }, rows.map(\.3), rows.map(\.1)),
                logger: self.logger)
            _ = try await PostgresJobQueue.enqueue(
                try rows.map { try Self.fireJob(appID: appID, id: $0.0, at: $0.1) }, on: connection, logger: self.logger
            )
        }
        return rows.map { ($0.0, $0.1) }
    }

    public func scheduleUpdate(
        appID: Int64, channelID: UUID, name: String, _ request: ActivityUpdateRequest, now: Date,
        idempotencyKey: String?
    ) async throws -> (id: UUID, sendAt: Date) {
        let path = if case .at = request.time { "send_at" } else { "offset" }
        let sendAt = try request.time.resolve(now: now, path: path)
        let push = try Self.json(try request.push(channelID: channelID, name: name))
        let id = UUID()
        let stored = try await self.database.transaction { connection in
            try await DeviceOperations.once(
                appID: appID, channelID: channelID, route: .activityUpdate, key: idempotencyKey, on: connection,
                logger: self.logger
            ) { connection in
                try await self.insertUpdate(
                    id: id, appID: appID, channelID: channelID, name: name, request, push: push, sendAt: sendAt,
                    on: connection)
                return ScheduledUpdate(id: id, sendAt: sendAt)
            }
        }
        return (stored.answer.id, stored.answer.sendAt)
    }

    /// The answer to a device-scheduled update, as an idempotent repeat gets it back.
    struct ScheduledUpdate: Codable, Sendable {
        var id: UUID
        var sendAt: Date
    }

    private func insertUpdate(
        id: UUID, appID: Int64, channelID: UUID, name: String, _ request: ActivityUpdateRequest, push: String,
        sendAt: Date, on connection: DatabaseConnection
    ) async throws {
        let rows = try await connection.execute(
            try ScheduleStatements.FindActivity.prepared(name, channelID, appID), logger: self.logger)
        guard let found = try await rows.collect().first.map(ScheduleStatements.FindActivity.Row.init) else {
            throw RegistryError.channelNotFound
        }
        guard let instance = found.instanceID else { throw ScheduleError.activityNotTracked(name: name) }
        try await Quotas.checkPendingUpdates(
            appID: appID, channelID: channelID, name: name, on: connection, logger: self.logger)
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(id)
        bindings.append(appID)
        bindings.append(request.scheduleName)
        bindings.append(channelID)
        bindings.append(name)
        bindings.append(instance)
        bindings.append(push)
        bindings.append(sendAt)
        try await connection.execute(
            ScheduleStatements.InsertActivityUpdate.prepared(bindings: bindings), logger: self.logger)
        _ = try await PostgresJobQueue.enqueue(
            [try Self.fireJob(appID: appID, id: id, at: sendAt)], on: connection, logger: self.logger)
    }

    public func cancelUpdates(appID: Int64, channelID: UUID, name: String) async throws -> Int {
        try await self.database.transaction { connection in
            let channel = try await connection.query(
                ScheduleStatements.FindChannel.query(channelID, appID), logger: self.logger
            ).collect()
            guard !channel.isEmpty else { throw RegistryError.channelNotFound }
            let rows = try await connection.query(
                ScheduleStatements.CancelUpdates.query(channelID, name, appID), logger: self.logger)
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    public func list(appID: Int64, limit: Int) async throws -> [ScheduleSummary] {
        let rows = try await self.database.client.query(
            ScheduleStatements.List.query(appID, limit), logger: self.logger)
        return try rows.elements.map { try ScheduleStatements.SummaryRow($0).summary }
    }

    public func get(appID: Int64, id: UUID) async throws -> ScheduleSummary? {
        let rows = try await self.database.client.query(ScheduleStatements.Get.query(appID, id), logger: self.logger)
        return try rows.elements.first.map { try ScheduleStatements.SummaryRow($0).summary }
    }

    public func replace(appID: Int64, id: UUID, _ request: ScheduleRequest, now: Date) async throws -> ScheduleSummary?
    {
        let sendAt = try request.time.resolve(now: now, path: request.timePath())
        try request.push.checkTimestamp(sentAt: sendAt, prefix: "push.")
        let push = try Self.json(request.push)
        let changed = try await self.database.transaction { connection -> Bool in
            guard let state = try await Self.lockedState(appID: appID, id: id, on: connection, logger: self.logger)
            else {
                return false
            }
            guard state == .pending else { throw ScheduleError.notPending(state: state) }
            var bindings = PostgresBindings(capacity: 4)
            bindings.append(request.name)
            bindings.append(push)
            bindings.append(sendAt)
            bindings.append(id)
            try await connection.query(ScheduleStatements.Replace.bound(bindings), logger: self.logger)
            try await connection.query(
                ScheduleStatements.MoveFireJob.query(sendAt, ScheduleFireJob.dedupeKey(id)), logger: self.logger)
            return true
        }
        return changed ? try await self.get(appID: appID, id: id) : nil
    }

    public func delete(appID: Int64, id: UUID) async throws -> Bool {
        try await self.database.transaction { connection in
            guard let state = try await Self.lockedState(appID: appID, id: id, on: connection, logger: self.logger)
            else {
                return false
            }
            guard state == .pending || state == .canceled else { throw ScheduleError.notPending(state: state) }
            try await connection.query(ScheduleStatements.Cancel.query(id), logger: self.logger)
            try await connection.query(
                ScheduleStatements.DeleteFireJob.query(ScheduleFireJob.dedupeKey(id)), logger: self.logger)
            return true
        }
    }

    static func lockedState(appID: Int64, id: UUID, on connection: DatabaseConnection, logger: Logger) async throws
        -> ScheduleState?
    {
        let rows = try await connection.query(ScheduleStatements.LockState.query(id, appID), logger: logger)
        for try await state in rows.decode(ScheduleState.self) { return state }
        return nil
    }

    public func launch(appID: Int64, channelID: UUID, systemActivityID: String, idempotencyKey: String?) async throws
        -> LaunchAttribution
    {
        guard idempotencyKey != nil else {
            return try await self.recordLaunch(
                appID: appID, channelID: channelID, systemActivityID: systemActivityID
            ) {
                try await self.database.client.execute($0, logger: self.logger)
            }
        }
        return try await self.database.transaction { connection in
            try await DeviceOperations.once(
                appID: appID, channelID: channelID, route: .launch, key: idempotencyKey, on: connection,
                logger: self.logger
            ) { connection in
                try await self.recordLaunch(appID: appID, channelID: channelID, systemActivityID: systemActivityID) {
                    try await connection.execute($0, logger: self.logger)
                }
            }
        }.answer
    }

    /// One statement: the launch row and its attribution.
    private func recordLaunch(
        appID: Int64, channelID: UUID, systemActivityID: String,
        run: (PreparedNamedStatement<ScheduleStatements.RecordLaunch>) async throws -> CollectedRows<PostgresRow>
    ) async throws -> LaunchAttribution {
        let rows = try await run(try ScheduleStatements.RecordLaunch.prepared(channelID, appID, systemActivityID))
        guard let row = try rows.elements.first.map(ScheduleStatements.RecordLaunch.Row.init), row.channelFound else {
            throw RegistryError.channelNotFound
        }
        return row.attribution
    }
}
