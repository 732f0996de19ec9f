import Synchronization

extension APNsClient {
    /// The connections of one (team, key, signing key, environment): bulk ones, of which sends use as many as
    /// `PoolSizer` says, and an express one for small sends.
    final class Pool: Sendable {
        /// Bulk traffic, spread round-robin over the first `inUse` of them.
        let slots: [APNsConnectionSlot]
        /// Small sends only (see `APNsClientConfiguration.expressMaxRequests`).
        let express: APNsConnectionSlot
        let cursor = Atomic<Int>(0)
        /// When a send last took this pool (`ContinuousClock` nanoseconds since the client started).
        let lastUsed = Atomic<Int64>(0)
        /// Requests of bulk sends submitted and not yet answered.
        let outstanding = Atomic<Int>(0)
        /// The streams a connection is assumed to allow before any has had a provider token accepted (RFC 9113
        /// recommends servers allow at least 100).
        let streamsBeforeAnswers: Int
        private let sizing: Mutex<Sizing>

        struct Sizing {
            var sizer: PoolSizer
            /// The slots' answer and round-trip totals when last read.
            var answers: Int64 = 0
            var roundTripNanos: Int64 = 0
        }

        init(
            slots: [APNsConnectionSlot], express: APNsConnectionSlot, streamsBeforeAnswers: Int, shrinkAfter: Duration
        ) {
            self.slots = slots
            self.express = express
            self.streamsBeforeAnswers = max(1, streamsBeforeAnswers)
            var sizer = PoolSizer(ceiling: slots.count)
            sizer.shrinkAfter =
                Double(shrinkAfter.components.seconds) + Double(shrinkAfter.components.attoseconds) / 1e18
            self.sizing = Mutex(Sizing(sizer: sizer))
        }

        var inUse: Int { self.sizing.withLock { $0.sizer.active } }

        /// The bulk connections a send of `count` requests spreads over; counts them as outstanding (the caller
        /// subtracts them once answered), under the same lock, so sends that start together see each other.
        func slotsToUse(for count: Int, now: Double) -> ArraySlice<APNsConnectionSlot> {
            let streams = self.streamsPerConnection()
            let active = self.sizing.withLock { sizing in
                sizing.record(self.totals())
                let outstanding = self.outstanding.add(count, ordering: .relaxed).oldValue
                sizing.sizer.tick(now: now, outstanding: outstanding, streamsPerConnection: streams)
                return sizing.sizer.willSend(
                    count: count, outstanding: outstanding, streamsPerConnection: streams, now: now)
            }
            return self.slots.prefix(active)
        }

        /// Ends the sizing window; the connections past the ones in use are closed once idle.
        func resize(now: Double) {
            let streams = self.streamsPerConnection()
            let active = self.sizing.withLock { sizing in
                sizing.record(self.totals())
                return sizing.sizer.tick(
                    now: now, outstanding: self.outstanding.load(ordering: .relaxed), streamsPerConnection: streams)
            }
            for slot in self.slots.dropFirst(active) { slot.closeIfIdle() }
        }

        /// The most streams a connection of the pool was allowed; `streamsBeforeAnswers` until one was.
        private func streamsPerConnection() -> Int {
            let most = self.slots.reduce(0) { max($0, $1.meter.streamLimit.load(ordering: .relaxed)) }
            return most > 0 ? most : self.streamsBeforeAnswers
        }

        private func totals() -> (answers: Int64, roundTripNanos: Int64) {
            self.slots.reduce((0, 0)) { sum, slot in
                (
                    sum.0 + slot.meter.answers.load(ordering: .relaxed),
                    sum.1 + slot.meter.roundTripNanos.load(ordering: .relaxed)
                )
            }
        }
    }
}

extension APNsClient.Pool.Sizing {
    /// Feeds the sizer the answers since the last read, with their mean round trip (read under the sizing lock, so
    /// the totals only grow from one read to the next).
    mutating func record(_ totals: (answers: Int64, roundTripNanos: Int64)) {
        let count = totals.answers - self.answers
        let nanos = totals.roundTripNanos - self.roundTripNanos
        guard count > 0 else { return }
        self.answers = totals.answers
        self.roundTripNanos = totals.roundTripNanos
        self.sizer.answered(count: Int(count), roundTrip: Double(nanos) / Double(count) / 1e9)
    }
}
