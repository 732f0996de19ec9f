import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct DoorbellTests {
    @Test func aRingWakesAWaiterLongBeforeItsTimeout() async {
        let bell = Doorbell()
        let started = ContinuousClock.now
        async let waited: Void = bell.wait(timeout: .seconds(30))
        // Time for the waiter to park (not observable from outside); were it late, the ring is remembered and this
        // still holds, so the pause cannot fail the test, only let it cover the parked case.
        try? await Task.sleep(for: .milliseconds(50))
        await bell.ring()
        await waited
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func aRingWithNobodyWaitingIsRememberedOnce() async {
        let bell = Doorbell()
        await bell.ring()
        let started = ContinuousClock.now
        await bell.wait(timeout: .seconds(30))  // returns at once
        #expect(ContinuousClock.now - started < .seconds(1))
        let second = ContinuousClock.now
        await bell.wait(timeout: .milliseconds(100))  // nothing pending: times out
        #expect(ContinuousClock.now - second >= .milliseconds(90))
    }

    @Test func cancellationEndsTheWait() async {
        let bell = Doorbell()
        let task = Task { await bell.wait(timeout: .seconds(30)) }
        // As above: a waiter cancelled before it parks returns at once too.
        try? await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        task.cancel()
        await task.value
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
