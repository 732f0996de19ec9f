import Foundation
import PostgresNIO
import PostgresStore
import Testing

/// Every SQL panel of `deploy/grafana/dashboards` runs against a migrated database holding data (a push, a
/// schedule, a start, a registry): the views are the dashboards' public interface.
@Suite struct DeploymentDashboardTests {
    static func panelQueries() throws -> [(dashboard: String, title: String, sql: String)] {
        let directory = TestEnvironment.repoRoot + "/deploy/grafana/dashboards"
        var queries: [(String, String, String)] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        where file.hasSuffix(".json") {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            for panel in json["panels"] as? [[String: Any]] ?? [] {
                for target in panel["targets"] as? [[String: Any]] ?? [] {
                    guard let sql = target["rawSql"] as? String else { continue }
                    queries.append((file, panel["title"] as? String ?? "?", sql))
                }
            }
        }
        return queries
    }

    /// Grafana's `$__timeFilter(column)` as a predicate that holds.
    static func substitute(_ sql: String) -> String {
        sql.replacingOccurrences(of: #"\$__timeFilter\([^)]*\)"#, with: "true", options: .regularExpression)
    }

    @Test func everySQLPanelRuns() async throws {
        let queries = try Self.panelQueries()
        #expect(queries.count >= 10)
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "dash")
            try await gw.track(app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            let update =
                #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{"n":1}}}}}"#
            #expect(try await gw.request(.post, "/api/push", json: update, auth: app.server).status == .accepted)
            let when = ScheduleFiringTests.iso(Date().addingTimeInterval(600))
            let schedule = #"{"schedule":{"scheduled_time":"\#(when)"},"push":\#(update)}"#
            #expect(try await gw.request(.post, "/api/schedules", json: schedule, auth: app.server).status == .created)
            for (dashboard, title, sql) in queries {
                do {
                    let rows = try await gw.database.client.query(
                        PostgresQuery(unsafeSQL: Self.substitute(sql)), logger: gw.database.logger)
                    for try await _ in rows {}
                } catch {
                    Issue.record("\(dashboard) / \(title): \(String(reflecting: error))")
                }
            }
        }
    }
}
