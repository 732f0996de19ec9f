import APNsTransport
import Delivery
import Foundation
import LiveActivitiesCore
import PostgresNIO
import Synchronization
import Testing

@testable import PostgresStore

/// The handshake between a push and an older push of the same name that it supersedes: the newer one waits while a
/// chunk of the older one, chosen before, is in flight; every chunk the older one sends after leaves out the targets
/// the newer one reaches. No worker runs here: the test plays both workers' statements in the order it needs.
@Suite struct DeliveryLedgerSupersessionTests {
    /// An app with three tracked activities of the name `match`, and a ledger on its database.
    static func withThreeActivities(
        _ body: @escaping @Sendable (GatewayHarness, TestApp, DeliveryLedger) async throws -> Void
    ) async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 3)
            try await body(gw, app, DeliveryLedger(database: gw.database))
        }
    }

    @Test func aNewerPushWaitsForTheOlderPushsChunkInFlightThenTheOlderLeavesItsTargets() async throws {
        try await Self.withThreeActivities { gw, app, ledger in
            // Two updates posted within one second: they tie on timestamp, and acceptance orders them.
            let older = try await DeliveryLedgerDeferredStampTests.post(1_700_000_005, gw: gw, app: app)
            let (targets, honoured) = try await ledger.firstChunk(of: older, limit: 10)
            #expect(honoured == 0 && targets.count == 3, "the older push's chunk is declared in flight")

            let newer = try await DeliveryLedgerDeferredStampTests.post(1_700_000_005, gw: gw, app: app)
            #expect(newer.order > older.order)
            let returned = Atomic<Bool>(false)
            let supersede = Task {
                defer { returned.store(true, ordering: .releasing) }
                return try await PushSupersession(ledger: ledger).supersede(for: newer, logger: gw.database.logger)
                    .superseded
            }
            // The newer push flags the older one, then waits for its chunk in flight (whose lease is 20 s): once the
            // flag is there, it must still be waiting.
            let flagged = try await eventually {
                try await gw.database.scalar(
                    "SELECT superseded_by = ARRAY[\(newer.id)]::uuid[] FROM pushes WHERE id = \(older.id)",
                    as: Bool.self)
            }
            #expect(flagged)
            let early = returned.load(ordering: .acquiring)
            #expect(!early, "the newer push went ahead of a chunk in flight")

            // The older chunk is answered and recorded; the record declares the next chunk under the new count.
            var outcome = ChunkOutcome(cursor: targets[0].channelID, processed: 1, sendStartedAt: Date())
            outcome.accepted = [targets[0]]
            let started = ContinuousClock.now
            let next = try await ledger.record(outcome, push: older, seq: 0, lastOfBatch: false)
            #expect(next == 1)
            #expect(try await supersede.value == 1)
            #expect(ContinuousClock.now - started < .seconds(10), "released by the record, not by the lease")

            // What the older push sends next leaves out every target the newer one reaches (audience "all").
            let audiences = try await ledger.superseders(of: older.id)
            let reached = try await ledger.channels(
                targets.map(\.channelID), reachedBy: audiences, appID: older.appID)
            #expect(reached == Set(targets.map(\.channelID)))
        }
    }

    /// Pushes to one channel each (device-scheduled updates) never meet unless they share a channel: a thousand of them
    /// firing together under one name must not compare every pair.
    @Test func pushesToOtherChannelsAreNotSuperseded() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 3)
            let channels = try await gw.database.scalar(
                "SELECT array_agg(channel_id::text ORDER BY channel_id) FROM live_activities", as: [String].self)
            let ledger = DeliveryLedger(database: gw.database)
            let post = { (audience: String) in
                let posted = try await gw.request(
                    .post, "/api/push",
                    json: #"{"audience":\#(audience),"device_types":["ios"],"notification":{"ios":{"live_activity":"#
                        + #"{"event":"update","name":"match","content_state":{"n":1}}}}}"#,
                    auth: app.server)
                let id = try #require((posted.json["push_ids"] as? [String])?.first.flatMap(UUID.init(uuidString:)))
                return try #require(try await ledger.push(id))
            }
            let first = try await post(#"{"ios_channel":["\#(channels[0])","\#(channels[1])"]}"#)
            let other = try await post(#"{"ios_channel":"\#(channels[2])"}"#)
            #expect(
                try await PushSupersession(ledger: ledger).supersede(for: other, logger: gw.database.logger).superseded
                    == 0)
            let overlapping = try await post(#"{"ios_channel":"\#(channels[1])"}"#)
            // Neither older push has a chunk in flight: the call returns at once.
            #expect(
                try await PushSupersession(ledger: ledger).supersede(for: overlapping, logger: gw.database.logger)
                    .superseded == 1)
            let flagged = try await gw.database.scalar(
                "SELECT superseded_by = ARRAY[\(overlapping.id)]::uuid[] FROM pushes WHERE id = \(first.id)",
                as: Bool.self)
            #expect(flagged)
        }
    }

    /// Pushes to two named users never meet (a channel has one named user); two to the same one do.
    @Test func pushesToOtherNamedUsersAreNotSuperseded() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let ledger = DeliveryLedger(database: gw.database)
            let post = { (user: String) in
                let posted = try await gw.request(
                    .post, "/api/push",
                    json: #"{"audience":{"named_user":"\#(user)"},"device_types":["ios"],"notification":{"ios":"#
                        + #"{"live_activity":{"event":"update","name":"match","content_state":{"n":1}}}}}"#,
                    auth: app.server)
                let id = try #require((posted.json["push_ids"] as? [String])?.first.flatMap(UUID.init(uuidString:)))
                return try #require(try await ledger.push(id))
            }
            let alice = try await post("alice")
            let bob = try await post("bob")
            #expect(
                try await PushSupersession(ledger: ledger).supersede(for: bob, logger: gw.database.logger).superseded
                    == 0)
            let aliceAgain = try await post("alice")
            #expect(
                try await PushSupersession(ledger: ledger).supersede(for: aliceAgain, logger: gw.database.logger)
                    .superseded == 1)
            let flagged = try await gw.database.scalar(
                "SELECT superseded_by = ARRAY[\(aliceAgain.id)]::uuid[] FROM pushes WHERE id = \(alice.id)",
                as: Bool.self)
            #expect(flagged)
        }
    }

    @Test func anUpdateDoesNotSupersedeAnEnd() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.seedActivities(appKey: app.key, count: 1)
            let ledger = DeliveryLedger(database: gw.database)
            let end = try await gw.request(
                .post, "/api/push",
                json: #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"#
                    + #""event":"end","name":"match","timestamp":1700000005}}}}"#,
                auth: app.server)
            let endID = try #require((end.json["push_ids"] as? [String])?.first.flatMap(UUID.init(uuidString:)))
            let update = try await DeliveryLedgerDeferredStampTests.post(1_700_000_005, gw: gw, app: app)
            #expect(
                try await PushSupersession(ledger: ledger).supersede(for: update, logger: gw.database.logger).superseded
                    == 0)
            let flagged = try await gw.database.scalar(
                "SELECT cardinality(superseded_by) FROM pushes WHERE id = \(endID)", as: Int32.self)
            #expect(flagged == 0, "an update that took an end's place would leave the activity on the Lock Screen")
        }
    }

    /// A push whose name has no other unfinished push is claimed by its first chunk's statement, with no supersession
    /// statement; where one is unfinished, that statement claims nothing and answers it, and the push supersedes it
    /// (waiting for its chunk in flight) before it reads its first chunk again.
    @Test func aPushSupersedesWhatItsFirstChunksStatementFinds() async throws {
        try await Self.withThreeActivities { gw, app, ledger in
            let logger = gw.database.logger
            let older = try await DeliveryLedgerDeferredStampTests.post(1_700_000_005, gw: gw, app: app)
            let first = try await PushSupersession(ledger: ledger).firstChunk(of: older, limit: 10, logger: logger)
            #expect(first.targets.count == 3 && first.superseding == 0, "claimed and declared in flight at once")

            let newer = try await DeliveryLedgerDeferredStampTests.post(1_700_000_006, gw: gw, app: app)
            guard
                case .unfinished(let unfinished) = try await ledger.firstChunk(
                    of: newer, limit: 10, unlessUnfinished: true)
            else {
                Issue.record("the newer push's statement did not find the older one")
                return
            }
            #expect(unfinished.map(\.id) == [older.id] && unfinished.first?.order == older.order)
            let untouched = try await gw.database.scalar(
                """
                SELECT state = 'queued' AND NOT EXISTS (SELECT 1 FROM push_batches WHERE push_id = \(newer.id))
                FROM pushes WHERE id = \(newer.id)
                """, as: Bool.self)
            #expect(untouched, "a push with an unfinished one was claimed before it superseded the older one")

            // The whole call: it waits for the older push's chunk in flight, then reads and claims.
            let returned = Atomic<Bool>(false)
            let read = Task {
                defer { returned.store(true, ordering: .releasing) }
                return try await PushSupersession(ledger: ledger).firstChunk(of: newer, limit: 10, logger: logger)
            }
            // A negative check: the chunk in flight holds the newer push for up to its 20 s lease, so 300 ms later it
            // must still be waiting (the flag alone does not show it: its read after the wait would still be running).
            try await Task.sleep(for: .milliseconds(300))
            let early = returned.load(ordering: .acquiring)
            #expect(!early, "the newer push went ahead of a chunk in flight")
            var outcome = ChunkOutcome(
                cursor: first.targets[2].channelID, processed: 3, sendStartedAt: Date())
            outcome.accepted = first.targets
            try await ledger.record(outcome, push: older, seq: 0, lastOfBatch: true)
            let after = try await read.value
            #expect(after.targets.count == 3 && after.superseding == 0)
            let flagged = try await gw.database.scalar(
                "SELECT superseded_by = ARRAY[\(newer.id)]::uuid[] FROM pushes WHERE id = \(older.id)", as: Bool.self)
            #expect(flagged)
        }
    }
}
