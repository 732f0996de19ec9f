import Foundation
import LiveActivitiesCore
import NIOCore
import PostgresNIO
import Testing

@testable import PostgresStore

/// A batch's chunks of an update to `all` are read by a prepared statement (`BatchChunkStatement`): the same targets,
/// in the same order, as the select made each time, and the same answer on pending stamps that block the push.
@Suite struct PushTargetsPreparedChunkTests {
    @Test func preparedChunksReadWhatTheSelectReads() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 250)
            let appID = try await gw.database.scalar("SELECT id FROM apps WHERE app_key = \(app.key)", as: Int64.self)
            let (client, logger) = (gw.database.client, gw.database.logger)
            let targets = PushTargets(appID: appID, event: .update, name: "match", attributesType: nil, audience: .all)
            let push = (id: UUID(), order: PushOrder(timestamp: 1_700_000_005, seq: 7))
            #expect(BatchChunkStatement(targets, after: nil, upTo: nil, limit: 100, sentBy: push) != nil)
            var tagged = targets
            tagged.audience = .tag("vip", group: "device")
            #expect(BatchChunkStatement(tagged, after: nil, upTo: nil, limit: 100, sentBy: push) == nil)

            // Walk every target both ways, in chunks of 100 (the unprepared select: no `sentBy`).
            func walk(prepared: Bool) async throws -> [PushTargets.Target] {
                var all: [PushTargets.Target] = []
                while true {
                    let chunk = try await targets.chunk(
                        after: all.last?.channelID, upTo: nil, limit: 100, sentBy: prepared ? push : nil,
                        rowRefs: false, on: client, logger: logger
                    ).targets
                    all += chunk
                    if chunk.count < 100 { return all }
                }
            }
            let unprepared = try await walk(prepared: false)
            #expect(unprepared.count == 250)
            #expect(try await walk(prepared: true) == unprepared)

            // A pending stamp newer than the push, holding the 101st to 150th channels, blocks the chunk that reads them.
            let (first, last) = (unprepared[100].channelID, unprepared[149].channelID)
            _ = try await gw.database.scalar(
                """
                INSERT INTO delivery_stamps (push_id, app_id, activity_name, apns_timestamp, push_seq, instance_ids,
                                             first_channel, last_channel)
                VALUES (gen_random_uuid(), \(appID), 'match', 1700000006, 8, '{}', \(first), \(last)) RETURNING 1
                """, as: Int32.self)
            let blocked = { (after: UUID?, upTo: UUID?) in
                try await targets.chunk(
                    after: after, upTo: upTo, limit: 100, sentBy: push, rowRefs: false, on: client, logger: logger
                ).blocked
            }
            #expect(try await blocked(nil, unprepared[99].channelID) == false)
            #expect(try await blocked(unprepared[99].channelID, nil) == true)
            #expect(try await blocked(last, nil) == false)
        }
    }

    /// A chunk's record of an update has the prepared statement's text; an end's does not.
    @Test func anUpdatesChunkIsRecordedByThePreparedStatement() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 3)
            let appID = try await gw.database.scalar("SELECT id FROM apps WHERE app_key = \(app.key)", as: Int64.self)
            let targets = PushTargets(appID: appID, event: .update, name: "match", attributesType: nil, audience: .all)
            let chunk = try await targets.chunk(
                after: nil, upTo: nil, limit: 10, on: gw.database.client, logger: gw.database.logger
            ).targets
            let push = PushForDelivery(
                id: UUID(), appID: appID, state: .sending, event: "update", name: "match", attributesType: nil,
                audience: .all, payload: ByteBuffer(), timestamp: 1_700_000_005, seq: 9, priority: 10)
            var outcome = ChunkOutcome(cursor: chunk[2].channelID, processed: 3, sendStartedAt: Date())
            outcome.accepted = chunk
            let deferred = DeliveryLedger.stampAndCount(outcome, push: push, seq: 1, deferStamps: true)
            #expect(deferred.sql == UpdateChunkRecordStatement.sql)
            // Stamped in place without update budgets: the same text (the stamps are bound, not spliced).
            let inPlace = DeliveryLedger.stampAndCount(outcome, push: push, seq: 1, deferStamps: false)
            #expect(inPlace.sql == UpdateChunkRecordStatement.sql)
            // A start writes its attempts in the same statement (they are confirmed after it, `ConfirmStarts`).
            var start = push
            start.targets.event = .start
            #expect(
                DeliveryLedger.stampAndCount(outcome, push: start, seq: 1, deferStamps: true).sql
                    == UpdateChunkRecordStatement.sql)
            // An end also ends the instances: its own statement.
            var end = push
            end.targets.event = .end
            #expect(
                DeliveryLedger.stampAndCount(outcome, push: end, seq: 1, deferStamps: true).sql
                    == EndChunkRecordStatement.sql)
        }
    }
}
