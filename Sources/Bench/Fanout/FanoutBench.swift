import ArgumentParser
import Foundation

/// `bench fanout` (`make bench-fanout`): one update to N tracked activities (default 1,000,000 on as many channels),
/// WORKERS workers (2), the APNs simulator answering after SIM_LATENCY_MS (30) and advertising SIM_MAX_STREAMS (500);
/// meanwhile another app sends single-activity updates and broadcasts. Release builds, one machine.
/// Prints POST -> last APNs answer, split into resolve / select / send / record, the bound the round trips set, each
/// process's CPU, and the other app's latencies: its single-activity updates, and its broadcasts (an update to a
/// name with a broadcast channel, one request to Apple's broadcast endpoint) during the fan-out and idle after it.
struct FanoutBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "One push to N activities through a gateway, workers and the simulator (make bench-fanout).",
        discussion: """
            Environment: N (1000000), WORKERS (2), SIM_LATENCY_MS (30: a typical round trip to Apple; 0 is an \
            instant server, which hides what bounds a real fan-out), SIM_MAX_STREAMS (500: the low end of what APNs \
            advertises), OTHER_ACTIVITIES (1: with one, each of the other app's updates waits for the one before it; \
            with more they are independent and wait for CPU), EVENT (update, or start: a push-to-start to N tokens), \
            SECOND_PUSH (1), CONTRACTS (0; 1: every push checked against a contract at the door), REPLICA (0; 1: a \
            streaming standby, its replay lag sampled through the fan-out), WORKER_POOL_SIZE (4), WORKER_CONCURRENCY (16), PG_SHARED_BUFFERS (2GB), PG_MAX_WAL_SIZE (1GB), \
            WORKER_BULK_NICE (read by the workers), BIN_DIR (gateway, worker and apns-sim built elsewhere, to \
            compare two builds in one sitting), MIGRATIONS_DIR, CITUS_URL (a Citus coordinator's database, emptied, \
            migrated and distributed by app, instead of a private PostgreSQL: docs/scaling.md).
            """
    )

    func run() async throws {
        let knobs = Knobs()
        let repository = try Repository.find()
        let bin = try await repository.binaries(knobs, products: ["gateway", "worker", "apns-sim"])
        let stack = try BenchStack(name: "bench-fanout", repository: repository, knobs: knobs, bin: bin)
        let settings = try FanoutSettings(knobs)
        try await stack.run {
            let run = try await FanoutRun.setUp(stack: stack, settings: settings)
            do {
                try await run.seed()
                try await run.startWorkers()
                try await run.warmUp()
                if settings.replica { try await run.startStandby() }
                let db = run.db
                let lag = settings.replica ? Task { await FanoutRun.sampleLag(db) } : nil
                try await run.fanOut()
                if let lag {
                    lag.cancel()
                    FanoutRun.reportLag(await lag.value)
                    await run.stopStandby()
                }
                try await run.report()
                try await run.afterThePush()
                try await run.broadcasts()
            } catch {
                await run.db.close()
                throw error
            }
            await run.db.close()
        }
    }
}
