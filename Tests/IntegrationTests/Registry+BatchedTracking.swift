import Foundation
import Shared
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
            let store = PostgresActivityStore(database: gw.database)
            // Per channel: a start, a rotation of it, a retry of that, and the other app's attempt (four waves, each
            // 16 calls at once, so most calls wait for a statement and go in one with others).
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
            // Odd channels retry; even ones are tried by the other app, in the same waves.
            let mixed = try await wave({ 100 + $0 }, app: { $0 % 2 == 0 ? otherID : ownerID })
            #expect(mixed == (0..<16).map { $0 % 2 == 0 ? "not found" : "unchanged" })

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
