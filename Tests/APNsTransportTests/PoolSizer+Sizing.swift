import Testing

@testable import APNsTransport

/// The pool's connection count: grows at once to hold what a send asks for, shrinks to rate x round trip after a
/// quiet spell, never past the ceiling or below one.
@Suite struct PoolSizerTests {
    @Test func aSmallSendKeepsOneConnectionAndAFanOutGrowsAtOnceToTheCeiling() {
        var sizer = PoolSizer(ceiling: 8)
        #expect(sizer.willSend(count: 200, outstanding: 0, streamsPerConnection: 500, now: 0) == 1)
        #expect(sizer.willSend(count: 900, outstanding: 200, streamsPerConnection: 500, now: 0.1) == 3)
        #expect(sizer.willSend(count: 4000, outstanding: 12_000, streamsPerConnection: 500, now: 0.2) == 8)
        #expect(sizer.willSend(count: 1, outstanding: 0, streamsPerConnection: 500, now: 0.3) == 8, "no shrink here")
    }

    @Test func itShrinksToRateTimesRoundTripOnlyAfterTheQuietSpell() {
        var sizer = PoolSizer(ceiling: 8)
        sizer.shrinkAfter = 30
        _ = sizer.willSend(count: 4000, outstanding: 0, streamsPerConnection: 500, now: 0)
        #expect(sizer.active == 8)
        // Then 20,000 answers a second at 30 ms: 600 streams, 750 with the headroom: two connections of 500. The
        // first window still saw the 4,000; the quiet spell starts with the second.
        var now = 0.0
        for _ in 0..<30 {
            now += 1
            sizer.answered(count: 20_000, roundTrip: 0.030)
            _ = sizer.willSend(count: 500, outstanding: 100, streamsPerConnection: 500, now: now - 0.5)
            #expect(sizer.tick(now: now, streamsPerConnection: 500) == 8, "still inside the quiet spell at \(now) s")
        }
        now += 1
        sizer.answered(count: 20_000, roundTrip: 0.030)
        #expect(sizer.tick(now: now, streamsPerConnection: 500) == 2)
        #expect(abs((sizer.roundTrip ?? 0) - 0.030) < 1e-9)
        // Idle afterwards: one connection stays.
        for _ in 0..<31 {
            now += 1
            sizer.tick(now: now, streamsPerConnection: 500)
        }
        #expect(sizer.active == 1)
    }

    @Test func aBusyWindowRestartsTheQuietSpell() {
        var sizer = PoolSizer(ceiling: 4)
        sizer.shrinkAfter = 3
        _ = sizer.willSend(count: 2000, outstanding: 0, streamsPerConnection: 500, now: 0)
        sizer.tick(now: 1, streamsPerConnection: 500)
        sizer.tick(now: 2, streamsPerConnection: 500)
        // A burst that needs all four again, in the third window.
        _ = sizer.willSend(count: 2000, outstanding: 0, streamsPerConnection: 500, now: 2.5)
        #expect(sizer.tick(now: 3, streamsPerConnection: 500) == 4)
        sizer.tick(now: 4, streamsPerConnection: 500)
        sizer.tick(now: 5, streamsPerConnection: 500)
        #expect(sizer.active == 4, "two quiet windows since the burst are not three")
        #expect(sizer.tick(now: 6, streamsPerConnection: 500) == 1)
    }

    @Test func aLowerStreamLimitNeedsMoreConnections() {
        var sizer = PoolSizer(ceiling: 16)
        #expect(sizer.willSend(count: 1000, outstanding: 0, streamsPerConnection: 100, now: 0) == 10)
        var capped = PoolSizer(ceiling: 0)
        #expect(capped.willSend(count: 1000, outstanding: 0, streamsPerConnection: 0, now: 0) == 1)
    }

    @Test func itNeverShrinksBelowWhatIsStillOutstanding() {
        var sizer = PoolSizer(ceiling: 8)
        sizer.shrinkAfter = 2
        _ = sizer.willSend(count: 4000, outstanding: 0, streamsPerConnection: 500, now: 0)
        // 1,600 requests still unanswered (a slow server): four connections' worth, whatever the rate says.
        for now in 1...5 { sizer.tick(now: Double(now), outstanding: 1600, streamsPerConnection: 500) }
        #expect(sizer.active == 4)
        for now in 6...9 { sizer.tick(now: Double(now), outstanding: 0, streamsPerConnection: 500) }
        #expect(sizer.active == 1)
    }
}
