import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresNIO
import PostgresStore
import Testing

/// A fan-out job carries its push (`PushFanoutJob`, `PushForDelivery.Snapshot`), so that its first run skips reading
/// the push. What the worker makes of the job must be exactly what it would have read from `pushes`, the acceptance
/// order that PostgreSQL assigns included.
@Suite struct PushJobSnapshotTests {
    static let pushes = #"""
        [{"audience":{"or":[{"tag":"vip","group":"tier"},{"and":[{"named_user":"u1"},{"not":{"tag":"x"}}]}]},
          "device_types":["ios"],
          "notification":{"ios":{"live_activity":{"event":"update","name":"match","priority":5,
                                                  "content_state":{"home":2},"timestamp":1700000123}}}},
         {"audience":{"ios_channel":["8f5a7e1c-0b5e-4f5e-9d1c-2f1a6b3c4d5e"]},"device_types":["ios"],
          "notification":{"ios":{"live_activity":{"event":"start","name":"match","attributes_type":"MatchAttributes",
                                                  "attributes":{"team":"A"},"content_state":{"home":0},
                                                  "alert":{"title":"Kick-off","body":"It starts"}}}}}]
        """#

    @Test func theJobsSnapshotIsThePushAsStored() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let posted = try await gw.request(.post, "/api/push", json: Self.pushes, auth: app.server)
            let ids = try #require((posted.json["push_ids"] as? [String])?.compactMap(UUID.init(uuidString:)))
            #expect(ids.count == 2)
            let ledger = DeliveryLedger(database: gw.database)
            for id in ids {
                let payload = try await gw.database.scalar(
                    """
                    SELECT payload::text FROM jobs
                    WHERE kind = 'push.fanout' AND payload->>'push_id' = \(id.uuidString.lowercased())
                    """,
                    as: String.self)
                let appID = try await gw.database.scalar("SELECT app_id FROM pushes WHERE id = \(id)", as: Int64.self)
                let job = ClaimedJob(
                    id: 0, kind: .pushFanout, appID: appID, payload: payload, attempt: 1, maxAttempts: 8)
                let carried = try #require(try job.payload(as: PushFanoutJob.self).push, "the job carries no snapshot")
                let snapshot = try #require(PushForDelivery(id: id, appID: appID, snapshot: carried))
                let stored = try #require(try await ledger.push(id))
                #expect(carried.seq != nil && snapshot.seq == stored.seq)
                #expect(snapshot.state == stored.state)
                #expect(snapshot.targets.appID == stored.targets.appID)
                #expect(snapshot.targets.event == stored.targets.event)
                #expect(snapshot.targets.name == stored.targets.name)
                #expect(snapshot.targets.attributesType == stored.targets.attributesType)
                #expect(snapshot.targets.audience == stored.targets.audience)
                #expect(Array(snapshot.payload.readableBytesView) == Array(stored.payload.readableBytesView))
                #expect(snapshot.timestamp == stored.timestamp)
                #expect(snapshot.priority == stored.priority)
            }
        }
    }
}
