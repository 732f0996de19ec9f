import Foundation
import Testing

/// A push's fan-out job sends the push itself only when its audience fits in `DeliverySettings.firstChunkSize`
/// (1,000), however large the batches' chunks are (`PUSH_CHUNK_SIZE`, 3,000 by default): that job runs on the express
/// lane, beside other apps' single updates.
@Suite struct PushDeliveryFirstChunkTests {
    @Test func aThousandTargetsAreSentByTheFanoutJobAndOneMoreGoToBatches() async throws {
        try await EndToEndHarness.run { e2e in
            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: 1000)
            let thousand = try await e2e.send(PushDeliveryFailureTests.update(1_700_000_001))
            let first = try await e2e.finished(thousand)
            #expect((first["counts"] as? [String: Int])?["accepted"] == 1000, "\(first)")
            #expect(try await Self.sentByFanout(thousand, e2e) == "true")

            try await e2e.gateway.seedActivities(appKey: e2e.app.key, count: 1, first: 1001)
            let more = try await e2e.send(PushDeliveryFailureTests.update(1_700_000_002))
            let second = try await e2e.finished(more)
            #expect((second["counts"] as? [String: Int])?["accepted"] == 1001, "\(second)")
            #expect(try await Self.sentByFanout(more, e2e) == "false")
        }
    }

    /// Whether the push's batches were sent by its fan-out job (`push_batches.sent_by_fanout`), as text.
    static func sentByFanout(_ pushID: String, _ e2e: EndToEndHarness) async throws -> String {
        try await e2e.gateway.database.scalar(
            "SELECT bool_or(sent_by_fanout)::text FROM push_batches WHERE push_id = \(pushID)::uuid", as: String.self)
    }
}
