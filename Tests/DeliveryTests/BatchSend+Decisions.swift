import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore
import Testing

@testable import Delivery

/// Which targets of a chunk go, and how: order, supersession, holds and budgets (`BatchSend`).
@Suite struct BatchSendDecisionTests {
    typealias F = Fixtures

    /// Starts the machine's first chunk: the action after `chunkStarted`.
    static func started(_ send: inout BatchSend) -> BatchSend.Action {
        #expect(send.start().kind == "startChunk")
        return send.chunkStarted(at: Date(timeIntervalSince1970: 1))
    }

    @Test func anUpdateOlderThanTheLastAppliedIsNeverSentAndAnEqualTimestampIs() throws {
        var send = F.machine([
            F.target(1, last: PushOrder(timestamp: 101, seq: 1)),  // newer timestamp applied: iOS would ignore this
            F.target(2, last: PushOrder(timestamp: 100, seq: 9)),  // equal timestamp, accepted before: applied
            F.target(3, last: PushOrder(timestamp: 100, seq: 11)),  // same second, accepted after: newer content
        ])
        let round = try #require(Self.started(&send).round)
        #expect(round.indexes == [1])
        let record = try #require(send.answered([F.accepted], random: 0).record)
        #expect(record.outcome.skipped == 1 && record.outcome.superseded == 1)
        #expect(record.outcome.accepted.map(\.instanceID) == [2])
    }

    @Test func anEndGoesWhateverWasSentBefore() throws {
        var send = F.machine([F.target(1, last: PushOrder(timestamp: 999, seq: 99))], event: .end)
        #expect(try #require(Self.started(&send).round).indexes == [0])
    }

    @Test func targetsASupersedingPushReachesAreLeftOutAndItsAudiencesAreReadOnce() throws {
        var send = BatchSend(
            event: .update, order: F.order, priority: 10, resumeAfter: nil,
            first: ([F.target(1), F.target(2), F.target(3, hold: .alreadyActive)], 1), settings: F.settings)
        #expect(Self.started(&send).kind == "readSuperseders")
        guard case .findReached(let asked) = send.supersedersRead(count: 1) else {
            Issue.record("the superseders' reach was not asked")
            return
        }
        #expect(asked == [F.channel(1), F.channel(2)], "held targets need no answer")
        let round = try #require(send.reached([F.channel(1)]).round)
        #expect(round.indexes == [1])
        // The chunk was full: its record declares the next one, under the same superseding count.
        let record = try #require(send.answered([F.accepted], random: 0).record)
        #expect(record.outcome.superseded == 1 && record.outcome.alreadyActive == 1 && !record.lastOfBatch)
        #expect(send.recorded(superseding: 1, shuttingDown: false).kind == "takeNext")
        #expect(send.selected([F.target(4)]).kind == "startChunk")
        guard case .findReached = send.chunkStarted(at: Date()) else {
            Issue.record("the audiences were read again, or their reach not asked")
            return
        }
    }

    @Test func noSupersedingPushCostsNoQuestion() throws {
        var send = F.machine([F.target(1)], superseding: 2)
        #expect(Self.started(&send).kind == "readSuperseders")
        // The superseding pushes were canceled meanwhile: none to ask about.
        #expect(try #require(send.supersedersRead(count: 0).round).indexes == [0])
    }

    @Test func heldStartsAreCountedAndNotSent() throws {
        var send = F.machine(
            [F.target(1, hold: .alreadyActive), F.target(2, hold: .startBudget), F.target(3, hold: .suspectToken)],
            event: .start)
        let record = try #require(Self.started(&send).record)
        #expect(
            record.outcome.alreadyActive == 1 && record.outcome.startBudget == 1 && record.outcome.suspectToken == 1)
        #expect(record.outcome.sent == 0 && record.outcome.processed == 3)
    }

    @Test func theUpdateBudgetDowngradesOrCountsEachTarget() throws {
        var send = F.machine([F.target(1, hold: .downgrade), F.target(2, hold: .budgeted), F.target(3)])
        let round = try #require(Self.started(&send).round)
        #expect(round.indexes == [0, 1, 2])
        #expect(round.priorities == [.powerConsiderate, .immediate, .immediate])
        let record = try #require(send.answered([F.accepted, F.accepted, F.accepted], random: 0).record)
        #expect(record.outcome.downgraded == 1)
        #expect(record.outcome.budgeted == [2], "only an accepted budgeted target counts against its budget")
    }

    @Test func aPowerConsideratePushGoesAtFive() throws {
        var send = F.machine([F.target(1)], priority: 5)
        #expect(try #require(Self.started(&send).round).priorities == [.powerConsiderate])
    }

    @Test func supersessionFollowsPushOrder() {
        let unfinished = [
            DeliveryLedger.UnfinishedPush(id: F.channel(1), event: .update, order: PushOrder(timestamp: 99, seq: 11)),
            DeliveryLedger.UnfinishedPush(id: F.channel(2), event: .update, order: PushOrder(timestamp: 101, seq: 5)),
            DeliveryLedger.UnfinishedPush(id: F.channel(3), event: .end, order: PushOrder(timestamp: 1, seq: 1)),
        ]
        let update = Supersession(push: F.order, event: .update, among: unfinished)
        #expect(update.older == [F.channel(1)], "an update never supersedes an end")
        #expect(update.newer == [F.channel(2)])
        let end = Supersession(push: F.order, event: .end, among: unfinished)
        #expect(end.older == [F.channel(2), F.channel(3)], "an end supersedes what was accepted before it")
        #expect(Supersession(push: F.order, event: .start, among: unfinished).isEmpty)
    }
}
