import Foundation
import LiveActivitiesCore
import PostgresNIO
import Testing

@testable import PostgresStore

/// A push's insert, the read of its name's broadcast channel and its report (`GET /api/pushes/{id}`) run as prepared
/// statements: unprepared, PostgreSQL planned each at every call (the report's view over every partition of its
/// tables, 1.4-1.8 ms a plan against 0.4 ms of execution).
@Suite struct PushAPIPreparedStatementTests {
    @Test func aPushsStatementsArePreparedOnTheirConnection() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let appID = try await gw.database.scalar("SELECT id FROM apps WHERE app_key = \(app.key)", as: Int64.self)
            try await withDatabase(gw.databaseURL, maxConnections: 1) { single in
                let store = PostgresPushStore(database: single)
                // First without an idempotency key (a NULL, which carries no type), then with; an update to all may go
                // by broadcast, so its name's channel is read.
                let push = PushRequest(
                    audience: .all,
                    liveActivity: LiveActivityNotification(
                        event: .update, name: "match", contentState: ["n": .integer(2)]))
                var pushIDs: [UUID] = []
                for key in [nil, "k-1"] as [String?] {
                    let (accepted, replayed) = try await store.submit(
                        appID: appID, [push], idempotencyKey: key, now: Date())
                    #expect(!replayed)
                    pushIDs += accepted.pushIDs
                }
                let report = try await store.report(appID: appID, pushID: pushIDs[0])
                #expect(report?.state == .queued)

                let names = [PushReportStatement.name, PushStatements.Insert.name, BroadcastStatements.Routing.name]
                var prepared: [String] = []
                for try await name in try await single.client.query(
                    "SELECT name FROM pg_prepared_statements WHERE name = ANY(\(names)) ORDER BY name"
                ).decode(String.self) { prepared.append(name) }
                #expect(prepared == names.sorted())
            }
        }
    }
}
