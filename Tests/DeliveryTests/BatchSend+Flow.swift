import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore
import Testing

@testable import Delivery

/// The batch's course: select, declare, chunks, records, retries, and how it ends (`BatchSend`).
@Suite struct BatchSendFlowTests {
    typealias F = Fixtures

    static func machine(resumeAfter: UUID? = nil) -> BatchSend {
        BatchSend(
            event: .update, order: F.order, priority: 10, resumeAfter: resumeAfter, first: nil, settings: F.settings)
    }

    @Test func aBatchSelectsFromItsCursorDeclaresThenSendsItsChunksUntilAShortOne() throws {
        var send = Self.machine(resumeAfter: F.channel(0))
        guard case .select(let after) = send.start() else {
            Issue.record("the batch did not begin with a select")
            return
        }
        #expect(after == F.channel(0))
        #expect(send.selected([F.target(1), F.target(2), F.target(3)]).kind == "declare")
        // A full chunk: the next one is read after its last channel while it is sent.
        #expect(send.declared(superseding: 0).prefetchAfter == .some(F.channel(3)))
        #expect(try #require(send.chunkStarted(at: Date()).round).indexes == [0, 1, 2])
        let first = try #require(send.answered([F.accepted, F.accepted, F.accepted], random: 0).record)
        #expect(!first.lastOfBatch && first.outcome.cursor == F.channel(3) && first.outcome.processed == 3)
        #expect(send.recorded(superseding: 0, shuttingDown: false).kind == "takeNext")
        // A short chunk is the batch's last: no read ahead, and its record finishes the batch.
        #expect(send.selected([F.target(4)]).prefetchAfter == .some(nil))
        #expect(try #require(send.chunkStarted(at: Date()).round).indexes == [0])
        let last = try #require(send.answered([F.accepted], random: 0).record)
        #expect(last.lastOfBatch)
        #expect(send.recorded(superseding: nil, shuttingDown: false).kind == "end")
    }

    @Test func aFullLastChunkIsFollowedByAnEmptyReadThatFinishesTheBatch() throws {
        var send = F.machine([F.target(1), F.target(2), F.target(3)])
        #expect(send.start().kind == "startChunk")
        _ = send.chunkStarted(at: Date())
        #expect(send.answered([F.accepted, F.accepted, F.accepted], random: 0).kind == "record")
        #expect(send.recorded(superseding: 0, shuttingDown: false).kind == "takeNext")
        #expect(send.selected([]).kind == "finishBatch")
    }

    @Test func aBatchThatNoLongerSendsEndsAtItsDeclarationOrRecord() throws {
        var declared = Self.machine()
        _ = declared.start()
        _ = declared.selected([F.target(1)])
        #expect(declared.declared(superseding: nil).kind == "end", "canceled before its first chunk")

        var recorded = F.machine([F.target(1), F.target(2), F.target(3)])
        _ = recorded.start()
        _ = recorded.chunkStarted(at: Date())
        _ = recorded.answered([F.accepted, F.accepted, F.accepted], random: 0)
        #expect(recorded.recorded(superseding: nil, shuttingDown: false).kind == "end", "canceled meanwhile")
    }

    @Test func shuttingDownInterruptsAfterTheRecordNotBefore() throws {
        var send = F.machine([F.target(1), F.target(2), F.target(3)])
        _ = send.start()
        _ = send.chunkStarted(at: Date())
        #expect(send.answered([F.accepted, F.accepted, F.accepted], random: 0).kind == "record")
        #expect(send.recorded(superseding: 0, shuttingDown: true).kind == "interrupt")
    }

    @Test func aRetryWaitsDeclaresAgainAndSendsOnlyWhatIsLeft() throws {
        var send = F.machine([F.target(1), F.target(2)])
        _ = send.start()
        _ = send.chunkStarted(at: Date())
        guard case .wait(let delay) = send.answered([F.accepted, F.unavailable], random: 0) else {
            Issue.record("a 503 was not retried")
            return
        }
        #expect(delay == .milliseconds(100))
        #expect(send.waited().kind == "declare")
        // A push superseded this one meanwhile: its audiences are read before the retry round.
        #expect(send.declared(superseding: 1).kind == "readSuperseders")
        guard case .findReached(let asked) = send.supersedersRead(count: 1) else {
            Issue.record("the retry round did not ask about the superseding push")
            return
        }
        #expect(asked == [F.channel(2)])
        #expect(try #require(send.reached([]).round).indexes == [1])
        let record = try #require(send.answered([F.accepted], random: 0).record)
        #expect(record.outcome.accepted.map(\.instanceID) == [1, 2] && record.outcome.failures.isEmpty)
    }

    @Test func aRetryRoundASupersedingPushTookOverSendsNothing() throws {
        var send = F.machine([F.target(1)])
        _ = send.start()
        _ = send.chunkStarted(at: Date())
        _ = send.answered([F.unavailable], random: 0)
        _ = send.waited()
        _ = send.declared(superseding: 1)
        _ = send.supersedersRead(count: 1)
        let record = try #require(send.reached([F.channel(1)]).record)
        #expect(record.outcome.superseded == 1 && record.outcome.sent == 0)
    }

    @Test func aRateLimitWaitsAtLeastASecondAndTheLastAttemptFails() throws {
        var send = F.machine([F.target(1)])
        _ = send.start()
        _ = send.chunkStarted(at: Date())
        for attempt in 1..<F.settings.maxAttempts {
            guard case .wait(let delay) = send.answered([F.tooMany], random: 0) else {
                Issue.record("attempt \(attempt) was not retried")
                return
            }
            #expect(delay >= .seconds(1))
            _ = send.waited()
            #expect(send.declared(superseding: 0).kind == "send")
        }
        let record = try #require(send.answered([F.tooMany], random: 0).record)
        #expect(record.outcome.failures.map(\.failure.reason) == ["TooManyRequests"])
    }

    @Test func aDeadTokenFailsAtOnceAndIsInvalidated() throws {
        var send = F.machine([F.target(1)])
        _ = send.start()
        _ = send.chunkStarted(at: Date())
        let record = try #require(send.answered([F.unregistered], random: 0).record)
        #expect(record.outcome.failures.map(\.failure.invalidatesToken) == [true])
    }

    @Test func aConfigurationRefusalStopsThePushAndWhatWaitedForARetry() throws {
        var send = F.machine([F.target(1), F.target(2)])
        _ = send.start()
        _ = send.chunkStarted(at: Date())
        let record = try #require(send.answered([F.badTopic, F.unavailable], random: 0).record)
        #expect(record.outcome.configurationError == "BadTopic")
        #expect(record.outcome.failures.map(\.failure.reason) == ["BadTopic", "stopped"])
        guard case .refused(let reason) = send.recorded(superseding: nil, shuttingDown: false) else {
            Issue.record("the batch went on after a configuration refusal")
            return
        }
        #expect(reason == "BadTopic")
    }

    @Test func aRetryRoundOfABatchThatStoppedFailsWhatWasLeft() throws {
        var send = F.machine([F.target(1), F.target(2)])
        _ = send.start()
        _ = send.chunkStarted(at: Date())
        _ = send.answered([F.accepted, F.unavailable], random: 0)
        _ = send.waited()
        let record = try #require(send.declared(superseding: nil).record)
        #expect(record.outcome.accepted.count == 1 && record.outcome.failures.map(\.failure.reason) == ["stopped"])
    }

    @Test func theWaitForChunksInFlightLooksOftenThenLessThenGivesUp() {
        var wait = ChunksInFlightWait()
        #expect(wait.counted(0, elapsed: .zero) == .proceed)
        let early = (0..<6).map { _ in wait.counted(1, elapsed: .milliseconds(5)) }
        #expect(early == [1, 2, 4, 8, 10, 10].map { .pause(.milliseconds($0)) })
        let late = (0..<4).map { _ in wait.counted(1, elapsed: .seconds(2)) }
        #expect(late == [10, 20, 40, 50].map { .pause(.milliseconds($0)) })
        #expect(wait.counted(1, elapsed: ChunksInFlightWait.deadline) == .giveUp)
    }
}
