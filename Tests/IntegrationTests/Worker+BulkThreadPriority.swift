import Foundation
import PostgresStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A worker process runs its bulk threads `WORKER_BULK_NICE` levels nicer than its express lane's thread, and with 0
/// runs them all as it started (and keeps running: a service that returned would end the worker).
@Suite struct WorkerBulkThreadPriorityTests {
    /// A thread of a process: its name and nice level (not `Foundation.Thread`, which it would shadow).
    struct ThreadSeen: CustomStringConvertible {
        let name: String
        let nice: Int32
        var description: String { "\(self.name) \(self.nice)" }
    }

    #if os(Linux)
        static func threads(of process: Process) -> [ThreadSeen] {
            let pid = process.processIdentifier
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return tasks.compactMap { task in
                guard let tid = Int32(task),
                    let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
                else { return nil }
                errno = 0
                let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid))
                return errno == 0
                    ? ThreadSeen(name: name.trimmingCharacters(in: .whitespacesAndNewlines), nice: nice) : nil
            }
        }

        @Test func bulkThreadsRunNicerThanTheExpressLane() async throws {
            let base = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)  // what a started worker inherits
            let bulk = min(19, base + 5)
            try await EndToEndHarness.run(workers: 0) { e2e in
                let niced = try e2e.startWorker("niced", environment: ["WORKER_BULK_NICE": "5"])
                let plain = try e2e.startWorker("plain", environment: ["WORKER_BULK_NICE": "0"])
                // The worker sets its threads within a second of starting; the global pool may start more later.
                let deadline = ContinuousClock.now + .seconds(20)
                var seen: [ThreadSeen] = []
                while ContinuousClock.now < deadline {
                    seen = Self.threads(of: niced)
                    let lane = seen.filter { $0.name == ExpressLane.threadName }
                    let others = seen.filter { $0.name != ExpressLane.threadName }
                    if lane.count == 1, lane[0].nice == base, others.count >= 3, others.allSatisfy({ $0.nice == bulk })
                    {
                        break
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
                // (Computed outside `#expect`: its expansion of a closure's `==` read the lane's nice wrong.)
                let laneNice = seen.filter { $0.name == ExpressLane.threadName }.map(\.nice)
                let othersNiced = seen.filter { $0.name != ExpressLane.threadName }.allSatisfy { $0.nice == bulk }
                #expect(laneNice == [base], "\(seen)")
                #expect(othersNiced, "\(seen)")
                // Two of the plain worker's sweeps' worth of time: it still runs, and nothing was made nicer (libdispatch
                // runs some threads of its own below the base level).
                try await Task.sleep(for: .seconds(2))  // a negative check: nothing niced, nothing ended, for 2 s
                let plainThreads = Self.threads(of: plain)
                let plainUntouched = plainThreads.count >= 4 && plainThreads.allSatisfy { $0.nice <= base }
                #expect(plain.isRunning, "\(e2e.workers.logs())")
                #expect(plainUntouched, "\(plainThreads)")
                #expect(niced.isRunning, "\(e2e.workers.logs())")
            }
        }
    #endif
}
