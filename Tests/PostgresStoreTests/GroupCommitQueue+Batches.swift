import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct GroupCommitQueueTests {
    @Test func quietCallersRunAloneAtOnce() {
        var queue = GroupCommitQueue<String, Int>(maxInFlight: 2, maxBatch: 8)
        guard case .lead(let first) = queue.submit(1, key: "a") else {
            Issue.record("should lead")
            return
        }
        #expect(first == [1])
        guard case .lead(let second) = queue.submit(2, key: "b") else {
            Issue.record("should lead")
            return
        }
        #expect(second == [2] && queue.inFlight == 2)
        #expect(queue.batchFinished() == nil && queue.inFlight == 1)
        #expect(queue.batchFinished() == nil && queue.inFlight == 0)
    }

    @Test func busyCallersWaitAndGoTogetherInOrder() {
        var queue = GroupCommitQueue<String, Int>(maxInFlight: 1, maxBatch: 3)
        _ = queue.submit(0, key: "z")
        for (n, key) in ["a", "b", "c", "d"].enumerated() {
            guard case .wait = queue.submit(n + 1, key: key) else {
                Issue.record("should wait")
                return
            }
        }
        #expect(queue.batchFinished() == [1, 2, 3])  // at most maxBatch, oldest first
        #expect(queue.inFlight == 1 && queue.waitingCount == 1)
        #expect(queue.batchFinished() == [4])
        #expect(queue.batchFinished() == nil && queue.inFlight == 0)
    }

    @Test func oneKeyNeverTwiceInABatch() {
        var queue = GroupCommitQueue<String, Int>(maxInFlight: 1, maxBatch: 10)
        _ = queue.submit(0, key: "a")
        for (n, key) in ["a", "b", "a", "c", "a"].enumerated() { _ = queue.submit(n + 1, key: key) }
        #expect(queue.batchFinished() == [1, 2, 4])
        #expect(queue.batchFinished() == [3])
        #expect(queue.batchFinished() == [5])
        #expect(queue.batchFinished() == nil)
    }
}
