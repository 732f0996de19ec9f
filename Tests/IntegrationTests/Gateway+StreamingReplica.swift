import Foundation
import PostgresStore
import Testing

@testable import Gateway

/// `DATABASE_READ_URL` on a real streaming standby of the gateway's primary: a push report and a schedule list read
/// there show what the primary wrote once the standby has replayed it. The lag seen is printed (docs/operations.md
/// says which reads tolerate it).
@Suite struct GatewayStreamingReplicaTests {
    @Test func reportsAndListsReadTheStandbyOnceItHasReplayed() async throws {
        try await StreamingPair.run(synchronous: false) { pair in
            let primary = try pair.primary.url
            try await withDatabase(primary) { database in
                try await Migrator(database: database).migrate(
                    MigrationFiles.load(directory: TestEnvironment.migrationsDirectory))
            }
            // The standby has the schema before the gateway reads there (under load its replay of the migrations
            // trailed: the report's view was missing, a 500).
            try await pair.standbyCaughtUp()
            let standby = try pair.url([pair.standby], target: "read-only")
            let logs = LogCapture()
            try await withDatabase(standby) { replica in
                try await GatewayHarness.run(logs: logs, databaseURL: primary, readDatabase: replica) { gw in
                    let app = try await gw.createApp()
                    let update =
                        #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{}}}}}"#
                    let sent = try await gw.request(.post, "/api/push", json: update, auth: app.server)
                    let accepted = ContinuousClock.now
                    #expect(sent.status == .accepted)
                    let id = try #require((sent.json["push_ids"] as? [String])?.first)
                    var report = try await gw.request(.get, "/api/pushes/\(id)", auth: app.server)
                    while report.status == .notFound && ContinuousClock.now - accepted < .seconds(10) {
                        try await Task.sleep(for: .milliseconds(5))
                        report = try await gw.request(.get, "/api/pushes/\(id)", auth: app.server)
                    }
                    #expect(report.status == .ok, "\(report.text)\n\(logs.text.suffix(2000))")
                    print(
                        "replica: the report of a push answered 202 read from the standby after \(ContinuousClock.now - accepted)"
                    )
                    // The standby is read-only: had the report been read on the primary, this would say so.
                    #expect(
                        try await replica.scalar("SELECT pg_is_in_recovery()", as: Bool.self),
                        "the read database is not the standby")
                    let when = ScheduleFiringTests.iso(Date().addingTimeInterval(3600))
                    let schedule = #"{"schedule":{"scheduled_time":"\#(when)"},"push":\#(update)}"#
                    #expect(
                        try await gw.request(.post, "/api/schedules", json: schedule, auth: app.server).status
                            == .created)
                    var listed = 0
                    let created = ContinuousClock.now
                    while listed == 0 && ContinuousClock.now - created < .seconds(10) {
                        let answer = try await gw.request(.get, "/api/schedules", auth: app.server)
                        listed = (answer.json["schedules"] as? [Any])?.count ?? 0
                        if listed == 0 { try await Task.sleep(for: .milliseconds(5)) }
                    }
                    #expect(listed == 1)
                }
            }
        }
    }
}
