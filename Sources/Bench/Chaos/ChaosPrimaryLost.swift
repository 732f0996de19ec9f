import Foundation

/// `bench chaos`'s primary-lost, on a stack of its own: its PostgreSQL is `scripts/pg-ha.sh`'s pg_auto_failover
/// formation (a monitor, a primary and a synchronous standby on loopback, durability on), which the gateway and the
/// workers reach by a multi-host DATABASE_URL with `target_session_attrs=read-write` (whichever node is the writable
/// primary). A quarter into the fan-out the primary is SIGKILLed and its data directory made unreadable; the fault
/// ends when the monitor has the standby promoted. Then, besides the row: the 202s answered before the kill and how
/// many of them were delivered (all, when none was lost), seconds from the promotion to the fan-out done, when the
/// other app's updates were accepted again, and the lost node rebuilt as the new standby (`pg-ha.sh rejoin`).
struct ChaosPrimaryLost {
    /// What the fault saw.
    struct Fault {
        var lostNode: String
        var promotedNode: String
        var killedAt: Double
        var promotedAt: Double
        /// The pushes answered 202 before the kill: the fan-out, then the other app's.
        var accepted: [String]
        /// Fan-out batches the workers were running at the kill: each may send one chunk again.
        var heldBatches: Int
    }

    /// The workers' chunk, which this scenario sets (`PUSH_CHUNK_SIZE`, `DeliverySettings.chunkSize`'s 3,000 unless
    /// given) so that the duplicates it allows are the workers' own bound: a chunk per batch held at the kill.
    static func chunkSize(_ knobs: Knobs) throws -> Int { try knobs.int("PUSH_CHUNK_SIZE", 3000) }

    /// Runs the scenario; returns the programs that missed a SIGTERM deadline (none here: the list's shape is shared).
    static func run(repository: Repository, knobs: Knobs, bin: String, n: Int, latency: Int) async throws -> [String] {
        guard (try? await ChildProcess.output("/usr/bin/env", ["sh", "-c", "command -v pg_autoctl"])) != nil else {
            print("primary-lost: skipped (pg_auto_failover not installed: scripts/deps.sh --ha)")
            return []
        }
        let script = repository.root + "/scripts/pg-ha.sh"
        // Not inside the stack's work directory, which is removed when the stack stops, before the formation is.
        let formation = try Repository.workDirectory("chaos-pg-ha")
        let stack = try BenchStack(name: "chaos-ha", repository: repository, knobs: knobs, bin: bin)
        stack.export([
            "WORKER_LEASE_SECONDS": knobs.string("WORKER_LEASE_SECONDS", "10"),
            "MIGRATIONS_DIR": repository.root + "/sql",
            "PUSH_CHUNK_SIZE": "\(try Self.chunkSize(knobs))",
        ])
        var failures: [String] = []
        do {
            try await stack.run {
                let url = try await ChildProcess.output("/usr/bin/env", [script, "start", formation])
                stack.export(["DATABASE_URL": url])
                try await stack.migrate()
                let port = try Self.port(formation, "a")
                let run = try await ChaosBench.setUp(
                    stack: stack, db: BenchDatabase(host: "127.0.0.1", port: port), n: n, latency: latency,
                    namespace: nil, pgPort: port, formation: formation)
                do {
                    try await run.runScenarios(["primary-lost"])
                    try await Self.report(run, script: script)
                } catch {
                    await run.db.close()
                    throw error
                }
                failures = run.failures
                await run.db.close()
            }
        } catch {
            await Self.stop(script: script, formation: formation, knobs: knobs)
            throw error
        }
        await Self.stop(script: script, formation: formation, knobs: knobs)
        return failures
    }

    /// A node's port, from the formation's directory.
    static func port(_ formation: String, _ node: String) throws -> Int {
        let text = (try? String(contentsOfFile: formation + "/\(node).port", encoding: .utf8)) ?? ""
        guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("no port for node '\(node)' in \(formation)")
        }
        return port
    }

    /// The notes primary-lost adds once its fan-out is done, then the lost node rebuilt as the standby.
    static func report(_ run: ChaosRun, script: String) async throws {
        guard let fault = run.primaryLost, let formation = run.formation else { return }
        let ids = fault.accepted.filter { !$0.isEmpty }.map { "'\($0)'" }.joined(separator: ",")
        let found = try await run.db.text("SELECT count(*) FROM pushes WHERE id IN (\(ids))")
        let delivered = try await run.db.text("SELECT count(*) FROM pushes WHERE id IN (\(ids)) AND state = 'done'")
        let chunk = try Self.chunkSize(run.stack.knobs)
        let posts = run.trickle.snapshot()
        let during = posts.filter { $0.at > fault.killedAt && $0.at <= fault.promotedAt }
        // A POST whose commit the standby had confirmed may be answered just after the kill: it must be there too.
        let late = during.filter { $0.status == 202 }.map { "'\($0.pushID)'" }
        let lateDelivered =
            late.isEmpty
            ? "0"
            : try await run.db.text(
                "SELECT count(*) FROM pushes WHERE id IN (\(late.joined(separator: ","))) AND state = 'done'")
        let after = posts.filter { $0.at > fault.promotedAt }
        let firstOK = after.first { $0.status == 202 }.map { String(format: "%.1f s", $0.at - fault.promotedAt) }
        var counts: [Int: Int] = [:]
        for post in during { counts[post.status, default: 0] += 1 }
        let statuses = counts.keys.sorted().map { "\(counts[$0] ?? 0) x \(String(format: "%03d", $0))" }
            .joined(separator: ", ")
        let singles = fault.accepted.count - 1
        let promotion = String(format: "%.1f", fault.promotedAt - fault.killedAt)
        let acceptedAfter = after.filter { $0.status == 202 }.count
        print(
            "   primary-lost: 202s answered before the kill: \(fault.accepted.count) (the fan-out and \(singles) "
                + "single updates); on the new primary \(found) found, \(delivered) delivered")
        print(
            "   primary-lost: killed -> promoted \(promotion) s; duplicates allowed: one chunk (\(chunk)) per batch "
                + "held at the kill (\(fault.heldBatches)) = \(chunk * fault.heldBatches)")
        print(
            "   primary-lost: the other app between kill and promotion: \(statuses.isEmpty ? "none" : statuses); "
                + "after: \(acceptedAfter)/\(after.count) answered 202, the first \(firstOK ?? "never") after the "
                + "promotion; the 202s between: \(late.count), delivered \(lateDelivered)")
        let started = ChaosRun.now()
        _ = try await ChildProcess.output("/usr/bin/env", [script, "rejoin", formation])
        print(
            "   primary-lost: node \(fault.lostNode) rebuilt and streaming synchronously as the standby "
                + "\(ChaosRun.since(started)) s after `pg-ha.sh rejoin`:")
        let state = try await ChildProcess.output("/usr/bin/env", [script, "state", formation])
        print(state.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
    }

    static func stop(script: String, formation: String, knobs: Knobs) async {
        _ = try? await ChildProcess.output("/usr/bin/env", [script, "stop", formation])
        if knobs.optional("KEEP") == nil {
            _ = try? await ChildProcess.output("/usr/bin/env", ["rm", "-rf", formation])
        } else {
            print("   primary-lost: formation kept in \(formation) (scripts/pg-ha.sh stop to stop it)")
        }
    }
}
