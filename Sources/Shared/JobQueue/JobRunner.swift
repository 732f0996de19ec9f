import Foundation
import LiveActivitiesCore
import Logging
import Metrics
import PostgresDatabase
import ServiceLifecycle

public struct JobRunnerConfiguration: Sendable {
    /// Names this runner's leases; unique per process.
    public var owner: String
    /// Jobs run at once.
    public var concurrency: Int
    public var lease: Duration
    /// The longest an idle runner sleeps without a notification (the fallback poll).
    public var pollInterval: Duration
    public var backoff: Backoff
    /// The most jobs of a kind in flight at once, so long jobs (big fan-out batches) leave slots for short ones
    /// (another tenant's single update).
    public var kindLimits: [JobKind: Int] = [:]
    /// Where the runner's loop and every job not of a bulk kind run (claims, single updates, schedules).
    /// Without one, everything runs on the global pool.
    public var express: EventLoopTaskExecutor?
    /// Kinds that run on the global pool even with an express lane: the long, CPU-heavy ones (fan-out batches).
    public var bulkKinds: Set<JobKind> = []

    public init(
        owner: String = "worker-\(UUID().uuidString.prefix(8).lowercased())",
        concurrency: Int = 8,
        lease: Duration = .seconds(30),
        pollInterval: Duration = .seconds(1),
        backoff: Backoff = Backoff()
    ) {
        self.owner = owner
        self.concurrency = concurrency
        self.lease = lease
        self.pollInterval = pollInterval
        self.backoff = backoff
    }
}

/// Claims due jobs and runs them with bounded concurrency. On graceful shutdown it stops claiming,
/// lets in-flight jobs finish and records their outcomes before returning.
public struct JobRunner: Service {
    let queue: any JobQueue
    let wakeups: (any JobWakeups)?
    let handlers: [JobKind: any JobHandler]
    let configuration: JobRunnerConfiguration
    let metrics: any MetricsFactory
    let logger: Logger
    /// Whether the runner's LISTEN connection is up (or being opened); false once it failed, until it listens again.
    public let listening = ListeningFlag()

    public init(
        queue: any JobQueue,
        wakeups: (any JobWakeups)?,
        handlers: [JobKind: any JobHandler],
        configuration: JobRunnerConfiguration,
        metrics: any MetricsFactory,
        logger: Logger
    ) {
        self.queue = queue
        self.wakeups = wakeups
        self.handlers = handlers
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
    }

    public func run() async throws {
        guard let express = self.configuration.express else { return await self.runLoop() }
        await withTaskExecutorPreference(express) { await self.runLoop() }
    }

    private func runLoop() async {
        let doorbell = Doorbell()
        let ledger = JobLedger()
        await withDiscardingTaskGroup { background in
            background.addTask { await self.listen(doorbell) }
            background.addTask { await self.heartbeat(ledger) }
            await withDiscardingTaskGroup { jobs in
                while !Task.isShuttingDownGracefully && !Task.isCancelled {
                    let capacity = self.configuration.concurrency - (await ledger.inFlightCount)
                    var sleep = self.configuration.pollInterval
                    var claimed = 0
                    var atLimit: [JobKind] = []
                    if capacity > 0 {
                        // Each claim's jobs start before the next claim (or the flush below) is sent.
                        (claimed, atLimit) = await self.claim(capacity: capacity, ledger: ledger) { batch in
                            for job in batch {
                                await ledger.start(job)
                                jobs.addTask {
                                    let failure = await self.execute(job)
                                    await ledger.finish(job.id, failure: failure)
                                    await doorbell.ring()
                                }
                            }
                        }
                    }
                    // Outcomes are recorded after the claim: a job just made due does not wait for them. (A finished
                    // job not yet recorded is still running under its lease, so no claim takes it meanwhile.)
                    await self.flush(ledger)
                    if claimed > 0 { continue }
                    if capacity > 0 {
                        // Due jobs of a kind at its limit wait for one of that kind to finish (which rings), not
                        // for a poll: counting them as due spun this loop on claims that could only come back empty.
                        sleep = await self.idleSleep(excluding: atLimit)
                    }
                    let timeout = sleep
                    // Not `cancelWhenGracefulShutdown`: its waiter ends through an unstructured task on the global
                    // pool, which a runner on an express lane must not wait for after every ring.
                    await withGracefulShutdownHandler {
                        await doorbell.wait(timeout: timeout)
                    } onGracefulShutdown: {
                        Task { await doorbell.ring() }
                    }
                }
                let inFlight = await ledger.inFlightCount
                self.logger.info("job runner draining", metadata: ["in_flight": "\(inFlight)"])
            }
            await self.flush(ledger)
            background.cancelAll()
        }
        self.logger.info("job runner stopped")
    }

    /// Fills `capacity` slots, none with a kind already at its limit: first up to the smallest headroom left
    /// under a limit (any kind), then the rest with the limited kinds left out. `start` gets each claim's jobs as
    /// soon as it returns. Returns how many were claimed and the kinds at their limit, which this runner cannot
    /// take more of now.
    private func claim(
        capacity: Int, ledger: JobLedger, start: ([ClaimedJob]) async -> Void
    ) async -> (count: Int, atLimit: [JobKind]) {
        let busy = await ledger.busyApps
        let mine = await ledger.inFlightIDs
        guard !self.configuration.kindLimits.isEmpty else {
            let claimed = await self.claim(limit: capacity, excluding: [], busyApps: busy, inFlight: mine)
            await start(claimed)
            return (claimed.count, [])
        }
        var headroom: [JobKind: Int] = [:]
        for (kind, limit) in self.configuration.kindLimits {
            headroom[kind] = max(0, limit - (await ledger.inFlight(kind: kind)))
        }
        let open = headroom.values.min() ?? capacity
        let atLimit = headroom.filter { $0.value == 0 }.map(\.key)
        let claimed = await self.claim(
            limit: min(capacity, open), excluding: atLimit, busyApps: busy, inFlight: mine)
        await start(claimed)
        guard claimed.count == min(capacity, open), capacity > claimed.count else { return (claimed.count, atLimit) }
        let more = await self.claim(
            limit: capacity - claimed.count, excluding: Array(headroom.keys), busyApps: busy, inFlight: mine)
        await start(more)
        return (claimed.count + more.count, atLimit)
    }

    private func claim(limit: Int, excluding: [JobKind], busyApps: [Int64], inFlight: [Int64]) async -> [ClaimedJob] {
        guard limit > 0 else { return [] }
        do {
            return try await self.queue.claim(
                limit: limit, owner: self.configuration.owner, lease: self.configuration.lease,
                excludingKinds: excluding, busyApps: busyApps, inFlight: inFlight)
        } catch {
            self.logger.warning("claim failed", metadata: ["error": "\(String(reflecting: error))"])
            return []
        }
    }

    /// Sleep until the next job is due, but no longer than the poll interval.
    private func idleSleep(excluding: [JobKind]) async -> Duration {
        guard let next = try? await self.queue.nextDueDate(excludingKinds: excluding) else {
            return self.configuration.pollInterval
        }
        let wait = Duration.milliseconds(Int64(max(0, next.timeIntervalSinceNow) * 1000))
        return min(wait, self.configuration.pollInterval)
    }

    private func execute(_ job: ClaimedJob) async -> JobFailure? {
        var logger = self.logger
        logger[metadataKey: "job_id"] = "\(job.id)"
        logger[metadataKey: "job_kind"] = "\(job.kind)"
        logger[metadataKey: "app_id"] = "\(job.appID)"
        let started = ContinuousClock.now
        defer {
            Timer(
                label: "worker_job_duration_seconds", dimensions: [("kind", job.kind.rawValue)], factory: self.metrics
            )
            .recordInterval(ContinuousClock.now - started)
        }
        guard let handler = self.handlers[job.kind] else {
            return JobFailure(jobID: job.id, retryAfter: nil, error: "no handler for job kind '\(job.kind)'")
        }
        do {
            if self.configuration.express != nil, self.configuration.bulkKinds.contains(job.kind) {
                try await withTaskExecutorPreference(globalConcurrentExecutor) {
                    try await handler.run(job, logger: logger)
                }
            } else {
                try await handler.run(job, logger: logger)
            }
            return nil
        } catch JobError.permanent(let reason) {
            return JobFailure(jobID: job.id, retryAfter: nil, error: reason)
        } catch JobError.interrupted {
            return JobFailure(
                jobID: job.id, retryAfter: .zero, error: "interrupted by shutdown", givesBackAttempt: true)
        } catch {
            return JobFailure(
                jobID: job.id,
                retryAfter: self.configuration.backoff.delay(attempt: job.attempt),
                error: String(describing: error)
            )
        }
    }

    /// Records finished jobs in bulk: one statement for completions, one for failures.
    private func flush(_ ledger: JobLedger) async {
        let (completed, failed, kinds) = await ledger.drain()
        guard !completed.isEmpty || !failed.isEmpty else { return }
        do {
            try await self.queue.complete(ids: completed, owner: self.configuration.owner)
            let outcomes = try await self.queue.fail(failed, owner: self.configuration.owner)
            for id in completed { self.count(kind: kinds[id], outcome: "completed") }
            for failure in failed {
                let outcome = outcomes[failure.jobID]?.rawValue ?? "lease_lost"
                self.count(kind: kinds[failure.jobID], outcome: outcome)
                self.logger.log(
                    level: outcome == "dead" ? .error : .warning,
                    "job failed",
                    metadata: ["job_id": "\(failure.jobID)", "outcome": "\(outcome)", "error": "\(failure.error)"]
                )
            }
        } catch {
            // Not recorded: the leases expire and the jobs run again, which handlers tolerate.
            self.logger.warning("recording job outcomes failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    private func count(kind: JobKind?, outcome: String) {
        Counter(
            label: "worker_jobs_total", dimensions: [("kind", kind?.rawValue ?? "unknown"), ("outcome", outcome)],
            factory: self.metrics
        ).increment()
    }

    private func listen(_ doorbell: Doorbell) async {
        guard let wakeups = self.wakeups else { return }
        while !Task.isCancelled {
            self.listening.set(true)
            do {
                try await wakeups.listen { await doorbell.ring() }
            } catch {
                self.listening.set(false)
                if Task.isCancelled { return }
                self.logger.debug("LISTEN connection lost; polling until it is back", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func heartbeat(_ ledger: JobLedger) async {
        let interval = self.configuration.lease / 3
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            let ids = await ledger.inFlightIDs
            do {
                let kept = try await self.queue.extendLease(
                    ids: ids, owner: self.configuration.owner, lease: self.configuration.lease)
                if kept.count < ids.count {
                    self.logger.warning("lost the lease of \(ids.count - kept.count) running jobs")
                }
                try await self.queue.buryAbandoned()
            } catch {
                self.logger.warning("lease heartbeat failed", metadata: ["error": "\(String(reflecting: error))"])
            }
        }
    }
}

/// The runner's book of jobs in flight and outcomes not yet written.
actor JobLedger {
    private var inFlight: Set<Int64> = []
    private var completed: [Int64] = []
    private var failed: [JobFailure] = []
    private var kinds: [Int64: JobKind] = [:]
    private var apps: [Int64: Int64] = [:]

    var inFlightCount: Int { self.inFlight.count }
    /// The apps of the jobs in flight: a claim serves the others first.
    var busyApps: [Int64] { Array(Set(self.inFlight.compactMap { self.apps[$0] })) }

    func inFlight(kind: JobKind) -> Int { self.inFlight.reduce(0) { $0 + (self.kinds[$1] == kind ? 1 : 0) } }
    var inFlightIDs: [Int64] { Array(self.inFlight) }

    func start(_ job: ClaimedJob) {
        self.inFlight.insert(job.id)
        self.kinds[job.id] = job.kind
        self.apps[job.id] = job.appID
    }

    func finish(_ id: Int64, failure: JobFailure?) {
        self.inFlight.remove(id)
        self.apps[id] = nil
        if let failure { self.failed.append(failure) } else { self.completed.append(id) }
    }

    func drain() -> (completed: [Int64], failed: [JobFailure], kinds: [Int64: JobKind]) {
        var kinds: [Int64: JobKind] = [:]
        for id in self.completed + self.failed.map(\.jobID) { kinds[id] = self.kinds.removeValue(forKey: id) }
        defer {
            self.completed.removeAll()
            self.failed.removeAll()
        }
        return (self.completed, self.failed, kinds)
    }
}
