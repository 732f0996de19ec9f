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

    /// A chunk's record is one prepared statement by the push's event: an update's and a start's (which writes its
    /// attempts in it, confirmed after it by `ConfirmStarts`) `UpdateChunkRecordStatement`, an end's (which also ends
    /// the instances) `EndChunkRecordStatement`; on Citus their by-id variants. The stamps and counts are bound, never
    /// spliced, so the bindings cannot change the text (`DeliveryLedgerStampTests` checks a last chunk's record runs
    /// it prepared).
    @Test func aChunksRecordIsThePreparedStatementOfItsEvent() {
        #expect(DeliveryLedger.recordStatement(.update, byID: false).name == UpdateChunkRecordStatement.name)
        #expect(DeliveryLedger.recordStatement(.start, byID: false).name == UpdateChunkRecordStatement.name)
        #expect(DeliveryLedger.recordStatement(.end, byID: false).name == EndChunkRecordStatement.name)
        #expect(
            DeliveryLedger.recordStatement(.update, byID: true).name
                == ChunkRecordByIDStatement<UpdateChunkRecordStatement>.name)
        #expect(
            DeliveryLedger.recordStatement(.end, byID: true).name
                == ChunkRecordByIDStatement<EndChunkRecordStatement>.name)
    }
}
