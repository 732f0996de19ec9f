import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresNIO
import Testing

@testable import PostgresStore

/// The delivery stamp of a recorded chunk goes to each instance's row where the chunk's select found it, and by id to
/// a row that has moved since (a rotation between the select and the record wrote a new version).
@Suite struct DeliveryLedgerStampTests {
    @Test(arguments: ["update", "end"])
    func everyAcceptedInstanceIsStampedEvenIfItsRowMovedSinceTheSelect(_ event: String) async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 3)
            let body =
                event == "end"
                ? #""event":"end","name":"match""# : #""event":"update","name":"match","content_state":{"n":1}"#
            let posted = try await gw.request(
                .post, "/api/push",
                json: #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"#
                    + body + #","timestamp":1700000001}}}}"#,
                auth: app.server)
            let pushID = try #require((posted.json["push_ids"] as? [String])?.first.flatMap(UUID.init(uuidString:)))

            // What a worker does (no worker runs here): read the push, make its one batch, select the chunk.
            let ledger = DeliveryLedger(database: gw.database)
            let push = try #require(try await ledger.push(pushID))
            let (targets, inline) = try await ledger.firstChunk(of: push, limit: 10)
            #expect(inline == 0)
            #expect(targets.count == 3 && targets.allSatisfy { !$0.row.isEmpty })

            // Instance 2 rotates its token while the chunk is out: its row moves.
            let channel = try await gw.database.scalar(
                "SELECT channel_id::text FROM live_activities WHERE push_token = \(hexToken(2))", as: String.self)
            let rotated = try await gw.track(
                app, channel: channel, name: "match", token: hexToken(99), systemID: "sys-seed-2",
                attributesType: "MatchAttributes")
            #expect(rotated.json["result"] as? String == "rotated")
            let moved = try await gw.database.scalar(
                "SELECT count(*) FROM live_activities WHERE ctid::text = ANY(\(targets.map(\.row)))", as: Int64.self)
            #expect(moved == 2, "the rotation should have moved one row")

            var outcome = ChunkOutcome(cursor: targets[2].channelID, processed: 3, sendStartedAt: Date())
            outcome.accepted = targets
            // The batch's last chunk is recorded in a transaction, by the prepared statement (unprepared, it was
            // planned for every batch): on a pool of one connection, the statement is prepared there afterwards.
            let statement = event == "end" ? EndChunkRecordStatement.name : UpdateChunkRecordStatement.name
            let recorded = outcome
            // So are the statements that finish the batch and count it on its push, and the push's read.
            try await withDatabase(gw.databaseURL, maxConnections: 1) { single in
                let ledger = DeliveryLedger(database: single)
                #expect(try await ledger.push(pushID) != nil)
                #expect(try await ledger.record(recorded, push: push, seq: 0, lastOfBatch: true) != nil)
                let names = [
                    statement, FinishBatchStatement.name, CountFinishedBatchStatement.name,
                    PushForDeliveryStatement.name,
                ]
                let prepared = try await single.scalar(
                    "SELECT count(*) FROM pg_prepared_statements WHERE name = ANY(\(names))", as: Int64.self)
                #expect(prepared == 4, "the last chunk's record, or what follows it, ran unprepared")
            }

            let stamped = try await gw.database.scalar(
                """
                SELECT count(*) FROM live_activities
                WHERE last_push_id = \(pushID) AND last_apns_timestamp = 1700000001
                  AND state = \(event == "end" ? "ended" : "active")
                """, as: Int64.self)
            #expect(stamped == 3)
            let token = try await gw.database.scalar(
                "SELECT push_token FROM live_activities WHERE channel_id = \(UUID(uuidString: channel)!)",
                as: String.self)
            #expect(token == hexToken(99), "the stamp must not undo the rotation")
            let report = try await gw.request(.get, "/api/pushes/\(pushID)", auth: app.server)
            let push2 = report.json["push"] as? [String: Any]
            #expect(push2?["state"] as? String == "done")
            #expect((push2?["counts"] as? [String: Int])?["accepted"] == 3)
        }
    }
}
