import Testing

@testable import APNsTransport

@Suite struct StreamGateTests {
    @Test func oneStreamUntilAuthenticatedThenThePeersLimit() {
        var gate = StreamGate<Int>(localMaxStreams: 100)
        for id in 0..<10 { gate.enqueue(id) }
        gate.peerSettings(maxConcurrentStreams: 1)
        #expect(gate.startable() == [0])
        #expect(gate.startable().isEmpty)
        gate.peerSettings(maxConcurrentStreams: 4)
        #expect(gate.startable().isEmpty)  // still unauthenticated
        gate.finished(authenticated: true)
        #expect(gate.startable() == [1, 2, 3, 4])
        gate.finished(authenticated: true)
        #expect(gate.startable() == [5])
        #expect(gate.inFlight == 4)
    }

    /// The server may lower its limit at any time: streams already open finish, and no new one starts until the
    /// count is under the new limit.
    @Test func aLowerPeerLimitTakesEffectForTheStreamsStartedAfterIt() {
        var gate = StreamGate<Int>(localMaxStreams: 1000)
        for id in 0..<10 { gate.enqueue(id) }
        _ = gate.startable()
        gate.finished(authenticated: true)
        gate.peerSettings(maxConcurrentStreams: 4)
        #expect(gate.startable() == [1, 2, 3, 4])
        gate.peerSettings(maxConcurrentStreams: 2)
        gate.finished(authenticated: true)
        #expect(gate.startable().isEmpty, "three are still open, over the new limit of two")
        gate.finished(authenticated: true)
        gate.finished(authenticated: true)
        #expect(gate.startable() == [5])
    }

    @Test func ourOwnCapWinsOverALargerPeerLimit() {
        var gate = StreamGate<Int>(localMaxStreams: 2)
        for id in 0..<5 { gate.enqueue(id) }
        _ = gate.startable()
        gate.finished(authenticated: true)
        gate.peerSettings(maxConcurrentStreams: 1000)
        #expect(gate.startable() == [1, 2])
    }

    @Test func aReplacedConnectionStartsOverAndRequeuedRequestsGoFirst() {
        var gate = StreamGate<Int>(localMaxStreams: 10)
        for id in 0..<3 { gate.enqueue(id) }
        _ = gate.startable()
        gate.finished(authenticated: true)
        gate.connectionReplaced()
        gate.requeueFirst(0)
        #expect(!gate.authenticated && gate.inFlight == 0)
        #expect(gate.startable() == [0])
        let removed = gate.remove(2)
        #expect(removed)
        #expect(gate.drainPending() == [1])
    }
}

extension StreamGate {
    /// Every request that may start now, as the slot starts them one after another.
    mutating func startable() -> [ID] {
        var started: [ID] = []
        while let next = self.startNext() { started.append(next) }
        return started
    }
}
