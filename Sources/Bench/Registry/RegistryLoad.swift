import Foundation

/// The measured part of `bench registry`: wrk's run, then what it reached against the target, the CPU per request
/// and what the gateway and PostgreSQL counted.
struct RegistryLoad {
    let knobs: Knobs
    let stack: BenchStack
    let db: BenchDatabase
    let gatewayProcess: ChildProcess
    let gatewayBase: String
    let rate: Int
    let connections: Int

    func run(channelsFile: String, auth: String) async throws {
        let pacing = self.knobs.string("PACING", "poisson")
        let duration = self.knobs.string("DURATION", "30s")
        let delayMS = self.connections * 1000 / self.rate
        let script = self.stack.work + "/track.lua"
        try TrackScript.lua(channelsFile: channelsFile, auth: auth, delayMS: delayMS, poisson: pacing == "poisson")
            .write(toFile: script, atomically: true, encoding: .utf8)
        print(
            "== wrk: \(self.connections) connections paced at ~\(self.rate) req/s (each waits \(delayMS) ms on average"
                + " between requests, \(pacing) pacing), \(duration)")
        let gatewayBefore = ProcessCPU.seconds(self.gatewayProcess.pid)
        let pgBefore = ProcessCPU.postgres(dataDirectory: self.stack.pgData)
        let wrk = try await ChildProcess.output(
            "/usr/bin/env",
            [
                "wrk", "-t\(self.knobs.string("WRK_THREADS", "2"))", "-c\(self.connections)", "-d\(duration)",
                "--latency", "-s", script, self.gatewayBase,
            ])
        for line in wrk.split(separator: "\n", omittingEmptySubsequences: false) { print("   " + line) }
        let gatewayCPU = ProcessCPU.seconds(self.gatewayProcess.pid) - gatewayBefore
        let pgCPU = ProcessCPU.postgres(dataDirectory: self.stack.pgData) - pgBefore
        let (requests, reached, p99) = Self.parse(wrk)
        // The issue's target: 5,000 requests/s with p99 <= 5 ms.
        print(
            String(
                format: "== target 5,000 requests/s at p99 <= 5 ms: %.0f/s at p99 %.2f ms, ", reached, p99)
                + (reached >= 5000 && p99 <= 5 ? "met" : "missed"))
        func perRequest(_ seconds: Double) -> String {
            String(format: "%.2f s = %.0f us per request", seconds, seconds * 1e6 / Double(requests))
        }
        print("== CPU during the run")
        print("   gateway: \(perRequest(gatewayCPU))")
        print("   postgres: \(perRequest(pgCPU))")
        let starts = try await self.db.text(
            """
            SELECT count(*) FILTER (WHERE outcome = 'started') || ' started, ' || count(*) FILTER (WHERE outcome = 'pending') || ' pending' FROM start_attempts
            """)
        print("== start confirmations: \(starts)")
        print("== instances tracked")
        for line in try await self.db.rows("SELECT state || '|' || count(*) FROM live_activities GROUP BY state") {
            print("   " + line)
        }
        let metrics = try await self.stack.http.get(self.gatewayBase + "/metrics").text
        print("== gateway answers by status")
        for line in metrics.split(separator: "\n")
        where line.hasPrefix("gateway_http_requests_total") && line.contains("live-activities") {
            print("   " + line)
        }
        print("== track statements (calls that came together shared one)")
        func value(_ name: String) -> Double? {
            metrics.split(separator: "\n").last { $0.hasPrefix(name) }?.split(separator: " ").last.flatMap {
                Double($0)
            }
        }
        if let sum = value("gateway_track_statement_calls_sum"),
            let count = value("gateway_track_statement_calls_count"), count > 0
        {
            print(
                String(
                    format: "   %d calls in %d statements, %.1f calls per statement", Int(sum), Int(count), sum / count)
            )
        }
    }

    /// wrk's "N requests in", "Requests/sec:" and its 99% latency in ms (printed in us, ms or s).
    static func parse(_ wrk: String) -> (requests: Int, rate: Double, p99: Double) {
        var requests = 0
        var rate = 0.0
        var p99 = 0.0
        for line in wrk.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if line.contains("requests in"), let n = fields.first.flatMap({ Int($0) }) { requests = n }
            if line.contains("Requests/sec"), fields.count > 1, let r = Double(fields[1]) { rate = r }
            if fields.first == "99%", fields.count > 1 {
                let raw = fields[1]
                let unit = raw.drop { $0.isNumber || $0 == "." }
                let number = Double(raw.prefix { $0.isNumber || $0 == "." }) ?? 0
                p99 = number * (unit == "us" ? 0.001 : unit == "s" ? 1000 : 1)
            }
        }
        return (requests, rate, p99)
    }
}
