import Foundation
import PostgresStore

/// `CEILINGS=1 bench registry`: after the device API's run, in the same sitting, what each half can do alone (issue
/// 50): the gateway answering a route that touches no database (`/healthz`, unpaced, as many as wrk gets through),
/// and PostgreSQL running the track statement alone (`pgbench`, one call per statement, prepared). Each with the
/// CPU it took per request.
struct RegistryCeilings {
    let knobs: Knobs
    let stack: BenchStack
    let gatewayProcess: ChildProcess
    let gatewayBase: String
    let pgPort: Int
    let connections: Int
    let channels: Int

    func run() async throws {
        let duration = self.knobs.string("DURATION", "30s")
        print(
            "== ceiling: the gateway alone (wrk, \(self.connections) connections, unpaced, GET /healthz, \(duration))")
        let before = ProcessCPU.seconds(self.gatewayProcess.pid)
        let wrk = try await ChildProcess.output(
            "/usr/bin/env",
            [
                "wrk", "-t\(self.knobs.string("WRK_THREADS", "2"))", "-c\(self.connections)", "-d\(duration)",
                "--latency", self.gatewayBase + "/healthz",
            ])
        let gatewayCPU = ProcessCPU.seconds(self.gatewayProcess.pid) - before
        let (requests, rate, p99) = RegistryLoad.parse(wrk)
        print(
            String(
                format: "   %.0f requests/s at p99 %.2f ms; gateway %.0f us of CPU per request", rate, p99,
                gatewayCPU * 1e6 / Double(max(requests, 1))))

        let clients = max(1, Int(self.knobs.string("PGBENCH_CLIENTS", "8")) ?? 8)
        print(
            "== ceiling: PostgreSQL alone (pgbench, the track statement, one call each, \(clients) clients, \(duration))"
        )
        let script = self.stack.work + "/track.pgbench"
        try Self.pgbenchScript(channels: self.channels, clients: clients).write(
            toFile: script, atomically: true, encoding: .utf8)
        let pgBefore = ProcessCPU.postgres(dataDirectory: self.stack.pgData)
        let seconds = Self.seconds(duration)
        let output = try await ChildProcess.output(
            "/usr/bin/env",
            [
                "pgbench", "-h", "127.0.0.1", "-p", "\(self.pgPort)", "-U", "postgres", "-n", "-M", "prepared",
                "-c", "\(clients)", "-j", "2", "-T", "\(seconds)", "-f", script, "postgres",
            ])
        let pgCPU = ProcessCPU.postgres(dataDirectory: self.stack.pgData) - pgBefore
        var transactions = 0
        for line in output.split(separator: "\n") {
            if line.contains("number of transactions actually processed"),
                let n = line.split(separator: " ").last.flatMap({ Int($0) })
            {
                transactions = n
            }
            if line.hasPrefix("latency average") || line.hasPrefix("tps") || line.contains("failed") {
                print("   " + line)
            }
        }
        print(
            String(
                format: "   %d statements; PostgreSQL %.0f us of CPU per statement", transactions,
                pgCPU * 1e6 / Double(max(transactions, 1))))
    }

    /// The track statement (`TrackStatement.sql`) for one random channel of the seed: a new token each time (half
    /// the channels rotate, half start), its secret's proof. The channel's id is looked up by install id inside the
    /// statement (pgbench cannot pick from a list of UUIDs): one index probe more than the gateway's call. Each client
    /// draws from its own channels (every `clients`-th from its id): the gateway serializes calls of one channel
    /// (`trackSerialized`), pgbench does not, and two clients starting an instance on the same channel at once
    /// collided on `live_activities_current` and ended the run.
    static func pgbenchScript(channels: Int, clients: Int) -> String {
        let values: [Int: String] = [
            1:
                "ARRAY[(SELECT id FROM channels WHERE app_id = (SELECT id FROM apps ORDER BY id LIMIT 1) AND install_id = 'bench-' || :i)]",
            2: "ARRAY[(SELECT id FROM apps ORDER BY id LIMIT 1)]",
            3: "ARRAY['match']",
            4: "ARRAY['act-' || :i]",
            5: "ARRAY[lpad(to_hex(:n::int8), 64, '0')]",
            6: "ARRAY['MatchAttributes']",
            7: "ARRAY['']",
            8: "ARRAY['']",
            9: "ARRAY[encode(sha256(convert_to('secret-' || :i, 'UTF8')), 'hex')]",
            10: "ARRAY[0]",
            11: "(SELECT id FROM apps ORDER BY id LIMIT 1)",
        ]
        let track = StatementCatalog.all.first { $0.name.hasPrefix("lagw_track_v") }
        guard let track else { preconditionFailure("the catalog lost the track statement") }
        // From the highest number down, so that `$1` does not match the start of `$10` and `$11`.
        var sql = track.sql
        for (number, value) in values.sorted(by: { $0.key > $1.key }) {
            sql = sql.replacingOccurrences(of: "$\(number)", with: value)
        }
        return """
            \\set i 1 + :client_id + \(clients) * random(0, \(max(1, channels / clients) - 1))
            \\set n random(1, 1000000000000)
            \(sql);

            """
    }

    /// wrk's duration (`30s`, `2m`, `1h`) in seconds, for pgbench's `-T`.
    static func seconds(_ duration: String) -> Int {
        let number = Int(duration.prefix { $0.isNumber }) ?? 30
        switch duration.last {
        case "m": return number * 60
        case "h": return number * 3600
        default: return number
        }
    }
}
