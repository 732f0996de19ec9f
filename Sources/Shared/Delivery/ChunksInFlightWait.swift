import PostgresStore

/// How a push that superseded older ones waits until none of their batches is sending a chunk chosen before (or the
/// chunks' leases ran out). Pure: the caller counts (`DeliveryLedger.chunksInFlight`), sleeps and measures the time.
///
/// The wait is usually one chunk's APNs answer and record, tens of milliseconds: it looks every 1, 2, 4, 8, then 10 ms
/// (an indexed count), so that the push goes out within 10 ms of the record; after a second (a worker that died
/// mid-chunk holds it for the lease) every 50 ms at most.
struct ChunksInFlightWait {
    enum Action: Equatable {
        /// None in flight: the push goes on.
        case proceed
        /// Count again after this pause.
        case pause(Duration)
        /// Still in flight past the lease: the push goes on anyway (and says so).
        case giveUp
    }

    static let deadline = DeliveryLedger.sendingLease + .seconds(1)
    private var pause = Duration.milliseconds(1)

    /// `inFlight` chunks were counted, `elapsed` since the wait began.
    mutating func counted(_ inFlight: Int64, elapsed: Duration) -> Action {
        if inFlight == 0 { return .proceed }
        guard elapsed < Self.deadline else { return .giveUp }
        let pause = self.pause
        self.pause = min(pause * 2, elapsed + pause < .seconds(1) ? .milliseconds(10) : .milliseconds(50))
        return .pause(pause)
    }
}
