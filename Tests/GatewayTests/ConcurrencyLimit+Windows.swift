import Testing

@testable import Gateway

/// The load-shedding limit on its own: it falls while even the fastest request of a window is slower than the target,
/// rises again when one meets it, and stays between its floor and ceiling. (The gateway shedding under load:
/// `GatewaySheddingTests`.)
@Suite struct ConcurrencyLimitTests {
    @Test func theLimitFallsToWhatMeetsTheTargetAndRisesWhenRequestsAreFast() {
        let start = ContinuousClock.now
        var limit = ConcurrencyLimit(
            target: .milliseconds(20), floor: 8, ceiling: 1024, interval: .milliseconds(100), now: start)
        #expect(limit.limit == 1024 && limit.admits(inFlight: 1024) && !limit.admits(inFlight: 1025))
        limit.served(in: .milliseconds(60), inFlight: 150, now: start + .milliseconds(10))
        limit.served(in: .milliseconds(25), inFlight: 200, now: start + .milliseconds(60))
        #expect(limit.limit == 1024, "a window decides at its end")
        limit.served(in: .milliseconds(70), inFlight: 120, now: start + .milliseconds(100))
        #expect(limit.limit == 160, "what was in flight (200), scaled by 20 ms over the fastest 25 ms")
        limit.served(in: .milliseconds(30), inFlight: 150, now: start + .milliseconds(200))
        #expect(limit.limit == 100, "150 in flight x 20/30")
        limit.served(in: .milliseconds(500), inFlight: 100, now: start + .milliseconds(300))
        #expect(limit.limit == 50, "what was in flight, at most halved")
        limit.served(in: .milliseconds(20), inFlight: 50, now: start + .milliseconds(400))
        #expect(limit.limit == 56, "at the target: up by an eighth")
        limit.served(in: .milliseconds(5), inFlight: 3, now: start + .milliseconds(500))
        #expect(limit.limit == 63, "fast with little in flight: up too, back towards the ceiling")
        limit.served(in: .milliseconds(300), inFlight: 8, now: start + .milliseconds(600))
        #expect(limit.limit == 63, "slow with no more than the floor in flight: a slow database, not a queue")
        for window in 7...30 {
            limit.served(in: .seconds(1), inFlight: 63, now: start + .milliseconds(100 * window))
        }
        #expect(limit.limit == 8 && limit.admits(inFlight: 8), "never below the floor")
        for window in 31...90 {
            limit.served(in: .milliseconds(1), inFlight: 1, now: start + .milliseconds(100 * window))
        }
        #expect(limit.limit == 1024, "back to the ceiling, never above it")
    }
}
