import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore
import Prometheus
import Testing

/// Many track calls at once share statements (`TrackBatcher`); each still gets its own answer, and a call with
/// another app's credentials gets nothing of the channel even when it shares a statement with the owner's calls.
@Suite struct RegistryBatchedTrackingTests {
    @Test func concurrentCallsOnManyChannelsEachGetTheirOwnAnswer() async throws {
        try await GatewayHarness.run { gw in
            let owner = try await gw.createApp()
            _ = try await gw.createApp(name: "Other", bundleID: "com.example.other")
            var channels: [UUID] = []
            for n in 0..<16 {
                channels.append(try #require(UUID(uuidString: try await gw.registerChannel(owner, installID: "d\(n)"))))
            }
            let ownerID = try await gw.database.scalar("SELECT id FROM apps WHERE name = 'Demo'", as: Int64.self)
            let otherID = try await gw.database.scalar("SELECT id FROM apps WHERE name = 'Other'", as: Int64.self)
            let registry = PrometheusCollectorRegistry()
            let store = PostgresActivityStore(
                database: gw.database, metrics: PrometheusMetricsFactory(registry: registry))
            // Three waves of 16 calls at once (most calls wait for a statement and go in one with others): a start
            // per channel, a rotation, then a retry on odd channels and the other app's attempt on even ones.
            func wave(_ token: (Int) -> Int, app: @escaping @Sendable (Int) -> Int64) async throws -> [String] {
                try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for (n, channel) in channels.enumerated() {
                        let tracking = ActivityTracking(
                            attributesType: "Match", token: hexToken(token(n)), systemActivityID: "S\(n)")
                        group.addTask {
                            do {
                                let decision = try await store.track(
                                    appID: app(n), channelID: channel, name: "match", tracking)
                                return (n, decision.result)
                            } catch RegistryError.channelNotFound {
                                return (n, "not found")
                            }
                        }
                    }
                    var results = [String](repeating: "", count: channels.count)
                    for try await (n, result) in group { results[n] = result }
                    return results
                }
            }
            #expect(try await wave({ $0 }, app: { _ in ownerID }) == Array(repeating: "started", count: 16))
            #expect(try await wave({ 100 + $0 }, app: { _ in ownerID }) == Array(repeating: "rotated", count: 16))
            // Odd channels retry; even ones are tried by the other app, in the same wave.
            let mixed = try await wave({ 100 + $0 }, app: { $0 % 2 == 0 ? otherID : ownerID })
            #expect(mixed == (0..<16).map { $0 % 2 == 0 ? "not found" : "unchanged" })

            // Every call went through a statement, counted once (the count of statements depends on timing).
            var text: [UInt8] = []
            registry.emit(into: &text)
            let sum = String(decoding: text, as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix("gateway_track_statement_calls_sum") }
            #expect(sum?.split(separator: " ").last.flatMap { Double($0) } == 48, "\(String(describing: sum))")

            let tokens = try await gw.database.scalar(
                """
                SELECT string_agg(c.install_id || '=' || right(la.push_token, 3), ','
                                  ORDER BY substr(c.install_id, 2)::int)
                FROM live_activities la JOIN channels c ON c.id = la.channel_id WHERE la.state = 'active'
                """, as: String.self)
            let expected = (0..<16).map { "d\($0)=\(String(hexToken(100 + $0).suffix(3)))" }
            #expect(tokens == expected.joined(separator: ","))
        }
    }
}
