import Foundation
import PostgresStore
import Testing

/// A start's first chunk as a worker holds it between Apple's answers and its record (no worker runs): an app whose
/// `count` channels have push-to-start tokens, a start posted to them, the chunk read, every target accepted.
struct StartChunk {
    var app: TestApp
    var channels: [String]
    var ledger: DeliveryLedger
    var push: PushForDelivery
    var outcome: ChunkOutcome

    init(_ gw: GatewayHarness, channels count: Int) async throws {
        self.app = try await gw.createApp()
        self.channels = try await gw.registerStarters(self.app, count: count)
        let posted = try await gw.request(
            .post, "/api/push", json: StartConfirmationTests.start(name: "game"), auth: self.app.server)
        let pushID = try #require((posted.json["push_ids"] as? [String])?.first.flatMap(UUID.init(uuidString:)))
        self.ledger = DeliveryLedger(database: gw.database)
        self.push = try #require(try await self.ledger.push(pushID))
        let (targets, _) = try await self.ledger.firstChunk(of: self.push, limit: 10)
        try #require(targets.count == count)
        self.outcome = ChunkOutcome(cursor: targets[count - 1].channelID, processed: count, sendStartedAt: Date())
        self.outcome.accepted = targets
    }

    /// Records the chunk, as the worker does once Apple answered; the batch goes on (its last chunk: finished).
    func record() async throws -> Int? {
        try await self.ledger.record(self.outcome, push: self.push, seq: 0, lastOfBatch: true)
    }
}
