import Foundation

/// REPLICA=1: a streaming standby of the bench's PostgreSQL (`scripts/pg.sh standby`), and its lag sampled every
/// 100 ms through the fan-out (`pg_stat_replication` on the primary): how stale a read on `DATABASE_READ_URL` is
/// under the fan-out's write load.
extension FanoutRun {
    var standbyData: String { self.stack.work + "/pg-standby" }

    func startStandby() async throws {
        let port = try await self.stack.repository.freePort()
        let primary = Int(try await self.db.text("SELECT current_setting('port')")) ?? 0
        try await self.stack.repository.pg(
            ["standby", self.standbyData, "\(port)", "\(primary)"] + self.stack.durability.arguments)
        await Poll.until(tries: 300, every: .milliseconds(100)) {
            (try? await self.db.text("SELECT state FROM pg_stat_replication")) == "streaming"
        }
        print("   standby on port \(port): \(try await self.db.text("SELECT state FROM pg_stat_replication"))")
    }

    func stopStandby() async {
        try? await self.stack.repository.pg(["stop", self.standbyData])
    }

    /// Samples until cancelled: replay lag (ms; PostgreSQL reports none once the standby has caught up) and the WAL
    /// bytes written on the primary but not yet replayed on the standby.
    static func sampleLag(_ db: BenchDatabase) async -> [(ms: Int, bytes: Int)] {
        var samples: [(ms: Int, bytes: Int)] = []
        while !Task.isCancelled {
            let row =
                (try? await db.rows(
                    """
                    SELECT coalesce(round(extract(epoch FROM replay_lag) * 1000), 0)::bigint || ' ' ||
                           pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint
                    FROM pg_stat_replication
                    """))?.first
            let parts = (row ?? "").split(separator: " ").compactMap { Int($0) }
            if parts.count == 2 { samples.append((parts[0], parts[1])) }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return samples
    }

    static func reportLag(_ samples: [(ms: Int, bytes: Int)]) {
        guard !samples.isEmpty else { return print("== replica: no samples") }
        func at(_ values: [Int], _ q: Double) -> Int {
            values.sorted()[min(values.count - 1, Int(Double(values.count) * q))]
        }
        let ms = samples.map(\.ms)
        let bytes = samples.map(\.bytes)
        print(
            "== replica lag during the fan-out (\(samples.count) samples, every 100 ms): replay lag p50 \(at(ms, 0.5)) "
                + "ms, p95 \(at(ms, 0.95)) ms, max \(ms.max() ?? 0) ms; WAL not yet replayed p50 "
                + "\(at(bytes, 0.5) / 1024) kB, max \(bytes.max()! / 1024) kB")
    }
}
