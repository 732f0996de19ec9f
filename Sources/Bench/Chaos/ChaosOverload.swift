import Foundation

/// Not a fault in a fan-out: the gateway offered three times the requests it serves (a channel lookup, one query
/// each) for OVERLOAD_SECONDS (default 60), by h2load at a fixed rate per connection; then half its rate for 10 s.
/// Prints the rate it served closed-loop, what was offered, what it answered (by status) and the p99 of the requests
/// it served, during and after.
struct ChaosOverload {
    let chaos: ChaosRun

    struct Policies: Encodable {
        var limits: [String: Int]
    }

    func run() async throws {
        guard (try? await ChildProcess.output("/usr/bin/env", ["sh", "-c", "command -v h2load"])) != nil else {
            print("overload: skipped (h2load not installed: scripts/deps.sh)")
            return
        }
        let stack = self.chaos.stack
        let seconds = try stack.knobs.int("OVERLOAD_SECONDS", 60)
        let clients = 200
        let channel = try await self.chaos.db.text("SELECT id FROM channels WHERE install_id = 'd1'")
        // The app's own rate limit (server_requests_per_second, 500 by default) would answer 429 first.
        _ = try await stack.http.put(
            self.chaos.gateway.base + "/admin/apps/\(self.chaos.big.appKey)/policies",
            Policies(limits: ["server_requests_per_second": 1_000_000]), bearer: stack.adminToken)
        let auth = "authorization: Basic " + Data(self.chaos.big.master.utf8).base64EncodedString()
        let url = self.chaos.gateway.base + "/api/channels/" + channel
        let closed = try await ChildProcess.output(
            "/usr/bin/env", ["h2load", "--h1", "-c", "32", "-m", "1", "-D", "10", "-H", auth, url])
        guard let finished = closed.split(separator: "\n").first(where: { $0.hasPrefix("finished in ") }),
            let rateText = finished.split(separator: ", ").dropFirst().first?.split(separator: " ").first,
            let rate = Double(rateText).map({ Int($0) })
        else { throw BenchError("h2load printed no rate: \(closed.prefix(300))") }
        let per = (3 * rate + clients - 1) / clients
        let during = stack.work + "/overload.log"
        let after = stack.work + "/after.log"
        _ = try? await ChildProcess.output(
            "/usr/bin/env",
            [
                "h2load", "--h1", "-c", "\(clients)", "-m", "1", "--rps", "\(per)", "-D", "\(seconds)", "-H", auth,
                "--log-file", during, url,
            ])
        _ = try? await ChildProcess.output(
            "/usr/bin/env",
            [
                "h2load", "--h1", "-c", "16", "-m", "1", "--rps", "\(rate / 32 + 1)", "-D", "10", "-H", auth,
                "--log-file", after, url,
            ])
        print("overload: the gateway serves \(Self.grouped(rate))/s closed-loop; offered 3x for \(seconds) s:")
        print("   during: \(Self.summary(Self.read(during), span: Double(seconds)))")
        print("   after, at half its rate for 10 s: \(Self.summary(Self.read(after), span: 10))")
    }

    /// h2load's log: a line a request, tab-separated (start, status, microseconds); status and milliseconds.
    static func read(_ path: String) -> [(status: Int, ms: Double)] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t")
            guard fields.count > 2, let status = Int(fields[1]), let us = Double(fields[2]) else { return nil }
            return (status, us / 1000)
        }
    }

    static func summary(_ rows: [(status: Int, ms: Double)], span: Double) -> String {
        let served = rows.filter { $0.status == 200 }.map(\.ms).sorted()
        let shed = rows.filter { $0.status == 503 }.count
        let other = rows.count - served.count - shed
        let p99 = served.isEmpty ? "nan" : String(format: "%.1f", served[Int(0.99 * Double(served.count - 1))])
        return "\(grouped(Int((Double(rows.count) / span).rounded()))) req/s answered: \(grouped(served.count)) served "
            + "(p99 \(p99) ms), \(grouped(shed)) shed with 503, \(other) other"
    }

    /// 12,345: thousands separated by commas, as Python's `{:,}`.
    static func grouped(_ n: Int) -> String {
        var digits = String(abs(n))
        var out = ""
        while digits.count > 3 {
            out = "," + digits.suffix(3) + out
            digits.removeLast(3)
        }
        return (n < 0 ? "-" : "") + digits + out
    }
}
