import Foundation
import LiveActivitiesCore
import Logging
import Metrics
import PostgresNIO
import Synchronization

/// The lock-free `track` path's reads and writes, many calls to one statement when calls come faster than PostgreSQL
/// answers (`GroupCommitQueue`). A call that finds fewer than `maxInFlight` statements running goes at once, alone;
/// under load, the calls that waited go together in the next statement, each answered with its own row. The
/// statement's round trip and its per-statement work are then shared.
///
/// A unique or foreign-key violation fails the whole statement: every call of it then reports that the registry
/// changed, and runs again serialized on its channel row, as a single call would.
final class TrackBatcher: Sendable {
    typealias Outcome = Result<TrackStatement.Found??, any Error>

    private enum Wake: Sendable {
        case done(Outcome)
        /// Run this batch; the woken call is its first element.
        case lead([Pending])
    }

    private struct Pending: Sendable {
        var call: TrackStatement.Call
        var waiter: CheckedContinuation<Wake, Never>
    }

    private struct Key: Hashable {
        var channelID: UUID
        var name: String
    }

    /// The name of the histogram of calls per statement (its sum: calls; its count: statements).
    static let callsPerStatementMetric = "gateway_track_statement_calls"
    /// Its buckets: powers of two up to the largest batch.
    static let callsPerStatementBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64]

    private let client: DatabaseClient
    private let logger: Logger
    private let queue: Mutex<GroupCommitQueue<Key, Pending>>
    private let callsPerStatement: Recorder

    init(
        client: DatabaseClient, logger: Logger, metrics: any MetricsFactory, maxInFlight: Int = 4, maxBatch: Int = 64
    ) {
        self.client = client
        self.logger = logger
        self.queue = Mutex(GroupCommitQueue(maxInFlight: maxInFlight, maxBatch: maxBatch))
        self.callsPerStatement = Recorder(label: Self.callsPerStatementMetric, factory: metrics)
    }

    /// The call's row (nil inside: the channel is not the app's); nil when the registry changed under it.
    func track(_ call: TrackStatement.Call) async throws -> TrackStatement.Found?? {
        let key = Key(channelID: call.channelID, name: call.name)
        let wake = await withCheckedContinuation { (waiter: CheckedContinuation<Wake, Never>) in
            let submission = self.queue.withLock { $0.submit(Pending(call: call, waiter: waiter), key: key) }
            if case .lead(let batch) = submission { waiter.resume(returning: .lead(batch)) }
        }
        switch wake {
        case .done(let outcome):
            return try outcome.get()
        case .lead(let batch):
            let outcomes = await self.execute(batch.map(\.call))
            // A statement that failed because this (leading) call was cancelled says nothing about the others:
            // they run again on their own, as after a conflict.
            let othersRetry = Task.isCancelled
            for (pending, outcome) in zip(batch, outcomes).dropFirst() {
                if othersRetry, case .failure = outcome {
                    pending.waiter.resume(returning: .done(.success(nil)))
                } else {
                    pending.waiter.resume(returning: .done(outcome))
                }
            }
            // Hand over before answering: the next batch must not wait for this call's response to be written.
            if let next = self.queue.withLock({ $0.batchFinished() }) {
                next[0].waiter.resume(returning: .lead(next))
            }
            return try outcomes[0].get()
        }
    }

    /// One outcome per call, in order. Never throws: an error is every call's outcome. One statement per app (one
    /// shard on Citus: docs/scaling.md), at once.
    private func execute(_ calls: [TrackStatement.Call]) async -> [Outcome] {
        let apps = Dictionary(grouping: calls.indices, by: { calls[$0].appID })
        guard apps.count > 1 else { return await self.executeOneApp(calls) }
        return await withTaskGroup(of: ([Int], [Outcome]).self) { group in
            for indices in apps.values {
                group.addTask { (indices, await self.executeOneApp(indices.map { calls[$0] })) }
            }
            var outcomes = [Outcome](repeating: .success(nil), count: calls.count)
            for await (indices, answers) in group {
                for (index, answer) in zip(indices, answers) { outcomes[index] = answer }
            }
            return outcomes
        }
    }

    /// The calls of one app in one statement.
    private func executeOneApp(_ calls: [TrackStatement.Call]) async -> [Outcome] {
        self.callsPerStatement.record(calls.count)
        do {
            guard
                let rows = try await PostgresActivityStore.run(
                    TrackStatement(calls: calls), on: nil, client: self.client, logger: self.logger)
            else { return Array(repeating: .success(nil), count: calls.count) }
            var outcomes = [Outcome](repeating: .success(.some(nil)), count: calls.count)
            for row in rows where outcomes.indices.contains(row.index) { outcomes[row.index] = .success(row.found) }
            return outcomes
        } catch {
            return Array(repeating: .failure(error), count: calls.count)
        }
    }
}
