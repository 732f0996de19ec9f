import Foundation
import PostgresStore
import Testing

@testable import Gateway

/// `DATABASE_READ_URL`: push reports and schedule lists read from the replica, everything else from the primary.
/// Here the "replica" is another database that never receives the primary's writes, so a read's source shows.
@Suite struct GatewayReadReplicaTests {
    @Test func reportsAndListsReadTheReplica() async throws {
        try await withTestDatabaseURL { replica, _ in
            try await GatewayHarness.run(readDatabase: replica) { gw in
                let app = try await gw.createApp()
                let update =
                    #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{}}}}}"#
                let sent = try await gw.request(.post, "/api/push", json: update, auth: app.server)
                #expect(sent.status == .accepted)
                let id = try #require((sent.json["push_ids"] as? [String])?.first)
                // Written to the primary (the cancel reads and writes there), not visible on the replica.
                #expect(try await gw.request(.get, "/api/pushes/\(id)", auth: app.server).status == .notFound)
                #expect(try await gw.request(.delete, "/api/pushes/\(id)", auth: app.server).status == .ok)
                let when = ScheduleFiringTests.iso(Date().addingTimeInterval(3600))
                let schedule = #"{"schedule":{"scheduled_time":"\#(when)"},"push":\#(update)}"#
                #expect(
                    try await gw.request(.post, "/api/schedules", json: schedule, auth: app.server).status == .created)
                let listed = try await gw.request(.get, "/api/schedules", auth: app.server)
                #expect((listed.json["schedules"] as? [Any])?.isEmpty == true, "\(listed.text)")
                #expect(try await gw.database.scalar("SELECT count(*) FROM schedules", as: Int64.self) == 1)
            }
        }
    }
}
