import LiveActivitiesCore
import PostgresStore
import Testing

@testable import Delivery

/// `BroadcastSend`: the turn on a channel and the retries of one broadcast, decided without a database or a network.
@Suite struct BroadcastSendTests {
    static let backoff = Backoff(base: .seconds(1), cap: .seconds(8), jitter: 0.5)
    typealias Answer = BroadcastSend.Answer

    @Test func aBusyChannelIsClaimedAgainAfterGrowingPausesUntilItsHoldersLeaseHasLapsed() {
        var send = BroadcastSend(maxAttempts: 3, backoff: Self.backoff)
        var pauses: [Duration] = []
        for n in 0..<8 {
            guard case .pause(let pause) = send.claimed(.busy, elapsed: .milliseconds(10 * n)) else {
                Issue.record("claim \(n) did not pause")
                return
            }
            pauses.append(pause)
        }
        #expect(pauses.map { $0 / .milliseconds(1) } == [2, 4, 8, 16, 32, 50, 50, 50])
        // Past the deadline the holder's lease has lapsed: this push goes.
        #expect(send.claimed(.busy, elapsed: BroadcastSend.turnDeadline) == .send)
        #expect(BroadcastSend.turnDeadline > BroadcastLedger.lease)
    }

    @Test func eachClaimAnswerHasItsAction() {
        var send = BroadcastSend(maxAttempts: 3, backoff: Self.backoff)
        #expect(send.claimed(.claimed, elapsed: .zero) == .send)
        #expect(send.claimed(.finished, elapsed: .zero) == .stop)
        #expect(
            send.claimed(.superseded, elapsed: .zero)
                == .record(reason: BroadcastLedger.supersededReason, outcome: "superseded"))
        #expect(send.claimed(.channelGone, elapsed: .zero) == .record(reason: "channel_deleted", outcome: "error"))
    }

    @Test(arguments: [429, 500, 503])
    func whatDescribesTheServerIsSentAgainWithBackoffUntilTheAttemptsRunOut(_ status: Int) {
        var send = BroadcastSend(maxAttempts: 3, backoff: Self.backoff)
        let busy = Answer(status: status, reason: "TooManyRequests", uniqueID: nil)
        #expect(send.answered(busy, random: 0) == .retry(after: .seconds(1)))
        #expect(send.answered(busy, random: 0.5) == .retry(after: .seconds(1.5)))
        #expect(send.answered(busy, random: 0) == .record(busy), "the last attempt's answer is recorded")
        #expect(send.attempts == 3)
    }

    @Test(arguments: [200, 400, 403, 404, 410, 413])
    func anyOtherStatusIsFinalAtOnce(_ status: Int) {
        var send = BroadcastSend(maxAttempts: 3, backoff: Self.backoff)
        let answer = Answer(status: status, reason: status == 200 ? nil : "BadRequest", uniqueID: "u")
        #expect(send.answered(answer, random: 0) == .record(answer))
        #expect(send.attempts == 1)
    }

    @Test func aTransportFailureIsSentAgainAndASuccessAfterItIsRecorded() {
        var send = BroadcastSend(maxAttempts: 3, backoff: Self.backoff)
        let failed = Answer(status: nil, reason: "transport:closed", uniqueID: nil)
        #expect(send.answered(failed, random: 0) == .retry(after: .seconds(1)))
        let accepted = Answer(status: 200, reason: nil, uniqueID: "u")
        #expect(send.answered(accepted, random: 0) == .record(accepted))
    }

    @Test func oneAttemptAtLeast() {
        var send = BroadcastSend(maxAttempts: 0, backoff: Self.backoff)
        let busy = Answer(status: 503, reason: nil, uniqueID: nil)
        #expect(send.answered(busy, random: 0) == .record(busy))
    }
}
