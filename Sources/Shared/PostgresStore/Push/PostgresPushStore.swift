import Foundation
import LiveActivitiesCore
import Logging
import NIOCore
import PostgresDatabase
import PostgresNIO

public struct PostgresPushStore: PushStore {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    private var logger: Logger { self.database.logger }

    public func submit(appID: Int64, _ pushes: [PushRequest], idempotencyKey: String?, now: Date) async throws
        -> (accepted: PushAccepted, replayed: Bool)
    {
        let accepted = PushAccepted(operationID: UUID(), pushIDs: pushes.map { _ in UUID() })
        let rows = try Self.rows(
            pushes, timestamp: Int64(now.timeIntervalSince1970), channels: try await self.channels(appID: appID, pushes)
        )
        // One statement (atomic by itself): a sender's push reaches the queue in one round trip, not five.
        let insert = try Self.insertStatement(rows, accepted: accepted, appID: appID, idempotencyKey: idempotencyKey)
        if try await Self.inserted(self.database.client.execute(insert, logger: self.logger)) {
            return (accepted, false)
        }
        let stored = try await self.database.client.query(
            PushStatements.StoredResponse.query(appID: appID, idempotencyKey: idempotencyKey), logger: self.logger)
        for try await row in stored {
            let response = try PushStatements.StoredResponse.Row(row).response
            return (try JSONDecoder().decode(PushAccepted.self, from: Data(response.utf8)), true)
        }
        throw PushStoreError.idempotencyRace
    }

    public func validate(appID: Int64, _ pushes: [PushRequest], now: Date) async throws {
        _ = try Self.rows(
            pushes, timestamp: Int64(now.timeIntervalSince1970), channels: try await self.channels(appID: appID, pushes)
        )
    }

    /// A name's broadcast channel decides the push's route (and with it a few rules): one read, only when a push may
    /// go by broadcast or is a start.
    private func channels(appID: Int64, _ pushes: [PushRequest]) async throws -> [String: BroadcastChannelRef] {
        try await PostgresBroadcastChannelStore.channels(appID: appID, routing: pushes) {
            try await self.database.client.execute($0, logger: self.logger)
        }
    }

    /// What a push row needs, encoded before any transaction starts.
    struct Rows {
        var pushes: [PushRequest]
        var payloads: [ByteBuffer]
        var audiences: [String]
        var requests: [String]
        var routes: [DeliveryRoute]
        var timestamp: Int64
    }

    /// `channels`: the broadcast channels of the pushes' names (`PostgresBroadcastChannelStore.channels`). A rule
    /// that depends on the route throws the `ValidationError` naming the field.
    static func rows(_ pushes: [PushRequest], timestamp: Int64, channels: [String: BroadcastChannelRef] = [:]) throws
        -> Rows
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var rows = Rows(pushes: pushes, payloads: [], audiences: [], requests: [], routes: [], timestamp: timestamp)
        for (index, push) in pushes.enumerated() {
            let prefix = pushes.count > 1 ? "[\(index)]." : ""
            let channel = push.liveActivity.name.flatMap { channels[$0] }
            let route = try push.route(channel: channel.map { ($0.channelID, $0.storage) }, prefix: prefix)
            rows.routes.append(route)
            // A start to a name with a channel subscribes the new activity to it (not with delivery tokens).
            let subscribe =
                push.liveActivity.event == .start && push.liveActivity.delivery != .tokens ? channel?.channelID : nil
            rows.payloads.append(
                ByteBuffer(
                    bytes: try push.payload(
                        timestamp: timestamp, route: route, inputPushChannel: subscribe, prefix: prefix)))
            rows.audiences.append(String(decoding: try encoder.encode(push.audience), as: UTF8.self))
            rows.requests.append(String(decoding: try encoder.encode(push), as: UTF8.self))
        }
        return rows
    }

    /// Inserts an operation, its pushes and their fan-out jobs inside the caller's transaction. False when the
    /// idempotency key was used before (nothing inserted).
    @discardableResult
    static func insert(
        _ rows: Rows, accepted: PushAccepted, appID: Int64, idempotencyKey: String? = nil, scheduleIDs: [UUID]? = nil,
        on connection: DatabaseConnection, logger: Logger
    ) async throws -> Bool {
        let query = try Self.insertStatement(
            rows, accepted: accepted, appID: appID, idempotencyKey: idempotencyKey, scheduleIDs: scheduleIDs)
        return try await Self.inserted(connection.execute(query, logger: logger))
    }

    /// The insert of an operation and its pushes (`PushStatements.Insert`). A fan-out job carries what the worker
    /// needs of its push (`PushForDelivery.Snapshot`), so that its first run does not read the push again: one round
    /// trip fewer between a single update's POST and its APNs request.
    static func insertStatement(
        _ rows: Rows, accepted: PushAccepted, appID: Int64, idempotencyKey: String?, scheduleIDs: [UUID]? = nil
    ) throws -> PreparedNamedStatement<PushStatements.Insert> {
        let response = String(decoding: try JSONEncoder().encode(accepted), as: UTF8.self)
        let pushes = rows.pushes
        let schedules =
            (scheduleIDs ?? []).map { $0.uuidString }
            + Array(repeating: "", count: max(0, pushes.count - (scheduleIDs?.count ?? 0)))
        // Each push's fan-out job, carrying the push (`PushFanoutJob`).
        let jobs = try pushes.indices.map { index in
            let push = pushes[index]
            let snapshot = PushForDelivery.Snapshot(
                push, body: Array(rows.payloads[index].readableBytesView),
                timestamp: push.liveActivity.timestamp ?? rows.timestamp, route: rows.routes[index])
            return try JobRequest(
                PushFanoutJob(pushID: accepted.pushIDs[index], push: snapshot), appID: appID, priority: 1)
        }
        return PushStatements.Insert.prepared(
            rows, accepted: accepted, appID: appID, idempotencyKey: idempotencyKey, response: response,
            schedules: schedules, jobs: jobs)
    }

    private static func inserted<Rows: AsyncSequence>(_ rows: Rows) async throws -> Bool
    where Rows.Element == PostgresRow {
        for try await row in rows { return try PushStatements.Insert.Row(row).inserted }
        return false
    }

    public func report(appID: Int64, pushID: UUID) async throws -> PushReport? {
        let rows = try await self.database.client.execute(
            PushReportStatement.prepared(pushID: pushID, appID: appID), logger: self.logger)
        for try await row in rows { return try PushReportRow(row).report }
        return nil
    }

    public func cancel(appID: Int64, pushID: UUID) async throws -> Int? {
        try await self.database.transaction { connection in
            let rows = try await connection.query(
                try PushStatements.LockForCancel.query(pushID, appID), logger: self.logger)
            var found: PushStatements.LockForCancel.Row?
            for try await row in rows { found = try PushStatements.LockForCancel.Row(row) }
            guard let found else { return nil }
            guard !found.state.isFinished else { return 0 }
            if found.batches != nil {
                // Fanned out: each unfinished batch stops and counts what it has not processed yet as canceled.
                try await connection.query(try PushStatements.CancelFannedOut.query(pushID), logger: self.logger)
                return Int(try await DeliveryLedger.stopBatches(pushID: pushID, on: connection, logger: self.logger))
            }
            let targets = PushTargets(
                appID: appID, event: .init(rawValue: found.event) ?? .update, name: found.name,
                attributesType: found.attributesType,
                audience: try JSONDecoder().decode(Audience.self, from: Data(found.audience.utf8)))
            let canceled = try await targets.count(on: connection, logger: self.logger)
            try await connection.query(
                try PushStatements.CancelBeforeFanout.query(pushID, Int64(canceled)), logger: self.logger)
            return canceled
        }
    }
}

enum PushStoreError: Error {
    /// The idempotency key's operation vanished between the insert and the read (deleted app): retry.
    case idempotencyRace
}
