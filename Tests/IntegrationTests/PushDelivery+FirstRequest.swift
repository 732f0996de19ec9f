import Foundation
import Testing

/// A push's report says when its first APNs request went out; a push that sent nothing has no such time.
@Suite struct PushDeliveryFirstRequestTests {
    static func update(_ timestamp: Int) -> String {
        """
        {"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update",
         "name":"match","content_state":{"t":\(timestamp % 1000)},"timestamp":\(timestamp)}}}}
        """
    }

    @Test func theReportGivesTheFirstRequestTimeOnlyWhenSomethingWasSent() async throws {
        try await EndToEndHarness.run { e2e in
            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: 3)
            let sent = try await e2e.finished(try await e2e.send(Self.update(1_700_000_002)))
            #expect((sent["counts"] as? [String: Int])?["accepted"] == 3)
            let created = try #require(sent["created"] as? String)
            let first = try #require(sent["first_request"] as? String, "\(sent)")
            let finished = try #require(sent["finished"] as? String)
            // ISO 8601 in UTC at one-second precision: the strings order as the instants do.
            #expect(created <= first && first <= finished, "\(created) \(first) \(finished)")
            let view = try await e2e.gateway.database.scalar(
                "SELECT count(*) FROM push_report WHERE seconds_to_first_request >= 0 AND first_request_at <= finished_at",
                as: Int64.self)
            #expect(view == 1)

            // Older than what every instance already got: all skipped, nothing sent, no first request.
            let skipped = try await e2e.finished(try await e2e.send(Self.update(1_700_000_001)))
            #expect((skipped["counts"] as? [String: Int])?["skipped"] == 3, "\(skipped)")
            #expect(skipped["first_request"] is NSNull, "\(skipped)")
        }
    }
}
