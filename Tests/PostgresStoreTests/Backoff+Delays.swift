import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct BackoffTests {
    @Test func delaysDoubleUpToTheCap() {
        let backoff = Backoff(base: .seconds(1), cap: .seconds(10), jitter: 0)
        #expect(
            (1...6).map { backoff.delay(attempt: $0, random: 0.7) }
                == [1, 2, 4, 8, 10, 10].map { Duration.seconds($0) })
    }

    @Test func jitterOnlyShortensWithinItsFraction() {
        let backoff = Backoff(base: .seconds(4), cap: .seconds(100), jitter: 0.5)
        #expect(backoff.delay(attempt: 1, random: 0) == .seconds(4))
        #expect(backoff.delay(attempt: 1, random: 0.999) > .seconds(2))
        #expect(backoff.delay(attempt: 1, random: 0.5) == .seconds(3))
    }

    @Test func hugeAttemptCountsDoNotOverflow() {
        #expect(
            Backoff(base: .seconds(1), cap: .seconds(300), jitter: 0).delay(attempt: 10_000, random: 0) == .seconds(300)
        )
    }
}
