import Foundation

extension FanoutRun {
    /// A push sent in batches leaves its stamps pending in delivery_stamps (sql/0024_pending_stamps.sql): nothing is
    /// written to the instances after it. Measured over the 3 s after the push; then (SECOND_PUSH=1, the default) a
    /// second update of the same name, whose end drops the first push's rows: what it did not reach would be
    /// stamped, here nothing.
    func afterThePush() async throws {
        guard !self.settings.startEvent else { return }
        let pgData = self.stack.pgData
        let quiet = ProcessCPU.postgres(dataDirectory: pgData)
        try await Task.sleep(for: .seconds(3))
        Self.show(
            try await self.db.text(
                """
                SELECT 'deferred stamps: ' || s.n || ' rows pending for ' || s.ids || ' instances; ' || l.n
                       || ' instance rows stamped after the push'
                FROM (SELECT count(*) AS n, coalesce(sum(cardinality(instance_ids)), 0) AS ids
                      FROM delivery_stamps WHERE push_id = '\(self.bigID)') s,
                     (SELECT count(*) AS n FROM live_activities WHERE last_push_id = '\(self.bigID)') l
                """))
        print(
            String(
                format: "   postgres CPU in the 3 s after the push: %.1f s",
                ProcessCPU.postgres(dataDirectory: pgData) - quiet))
        guard self.settings.secondPush else { return }
        try await self.db.run(
            "DROP TABLE IF EXISTS bench_statements", "CREATE TABLE bench_statements AS SELECT * FROM pg_stat_statements"
        )
        let secondID = try await self.gateway.push(self.settings.bigBody(minute: 68), auth: self.big.master)
        await Poll.until(tries: 600, every: .milliseconds(200)) {
            let state = try await self.gateway.state(secondID, auth: self.big.master)
            return state == "done" || state == "failed"
        }
        let second = ProcessCPU.postgres(dataDirectory: pgData)
        await Poll.until(tries: 300, every: .milliseconds(200)) {
            try await self.db.text("SELECT count(*) FROM delivery_stamp_pushes WHERE push_id = '\(self.bigID)'") == "0"
        }
        Self.show(
            try await self.db.text(
                """
                SELECT 'second update: POST -> last APNs answer ' || round(extract(epoch FROM p.finished_at - p.created_at)::numeric, 2)
                       || ' s; the first push''s rows dropped ' || round(extract(epoch FROM now() - p.finished_at)::numeric, 1)
                       || ' s after it finished, ' || l.n || ' instances stamped from them; ' || s.n || ' rows pending'
                FROM pushes p,
                     (SELECT count(*) AS n FROM live_activities WHERE last_push_id = '\(self.bigID)') l,
                     (SELECT count(*) AS n FROM delivery_stamps) s
                WHERE p.id = '\(secondID)'
                """))
        print(
            try await self.db.text(
                """
                SELECT '   superseding statement: ' || round((sum(s.total_exec_time - coalesce(b.total_exec_time, 0)) / 1000)::numeric, 2)
                       || ' s in ' || sum(s.calls - coalesce(b.calls, 0)) || ' calls'
                FROM pg_stat_statements s LEFT JOIN bench_statements b USING (userid, dbid, queryid)
                WHERE s.query LIKE 'WITH pending AS%'
                """))
        print(
            String(
                format: "   postgres CPU from the end of the second push until its rows were dropped: %.1f s",
                ProcessCPU.postgres(dataDirectory: pgData) - second))
    }

    /// Broadcasts: POST -> the broadcast request sent by the worker and received by the simulator, during the
    /// fan-out and then idle (40 more, 100 ms apart, after the fan-out: the machine is quiet again).
    func broadcasts() async throws {
        for _ in 0..<40 {
            self.ts += 1
            try await self.cast(self.ts)
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .seconds(1))
        print("   other app's broadcasts, POST -> broadcast request:")
        let busy = try await self.castTimes(0..<self.busyCasts)
        let idle = try await self.castTimes(self.busyCasts..<self.busyCasts + 40)
        print("     during the fan-out: \(busy)")
        print("     idle:               \(idle)")
        print("   other app's single updates idle, POST -> 202 accepted: \(try await self.idleAccepts())")
        print("   the same, POST /api/push/validate (the door without a commit): \(try await self.idleValidations())")
        if self.settings.startEvent {
            let pending = try await self.db.text("SELECT count(*) FROM start_attempts WHERE push_id = '\(self.bigID)'")
            print("   start confirmations: \(pending) pending rows written")
        }
    }

    /// POST -> 202 of 200 single updates one after another on a quiet machine: the cost of the door's work
    /// (validation, the contracts' check, the insert) without a fan-out competing for the CPU.
    func idleAccepts() async throws -> String {
        var times: [Double] = []
        for _ in 0..<200 {
            self.ts += 1
            let sent = ContinuousClock.now
            _ = try await self.solo(self.ts)
            times.append((ContinuousClock.now - sent).seconds)
        }
        times.sort()
        return String(
            format: "p50 %.2f ms, p99 %.2f ms (%d)", 1000 * times[times.count / 2],
            1000 * times[times.count * 99 / 100],
            times.count)
    }

    /// 400 validations of a single update one after another (the first 50 dropped): what the door costs without the
    /// commit that dominates an accepted push.
    func idleValidations() async throws -> String {
        var times: [Double] = []
        for n in 0..<400 {
            self.ts += 1
            let sent = ContinuousClock.now
            try await self.gateway.validate(.update("solo", timestamp: self.ts), auth: self.small.master)
            if n >= 50 { times.append((ContinuousClock.now - sent).seconds) }
        }
        times.sort()
        return String(
            format: "p50 %.3f ms, p99 %.3f ms (%d)", 1000 * times[times.count / 2],
            1000 * times[times.count * 99 / 100],
            times.count)
    }

    func castTimes(_ range: Range<Int>) async throws -> String {
        let sent = Self.pairs(self.casts.ts[range], self.casts.ids[range])
        guard !sent.isEmpty else { return "" }
        let pcts = Self.percentiles
        return try await self.db.text(
            """
            WITH sent(ts, push_id) AS (VALUES \(sent)),
                 seen AS (SELECT (n -> 'body' -> 'aps' ->> 'timestamp')::bigint AS ts, (n ->> 'received_at')::float8 AS at
                          FROM jsonb_array_elements($1::jsonb) n),
                 d AS (SELECT seen.at - extract(epoch FROM p.created_at) AS first,
                              extract(epoch FROM p.broadcast_sent_at - p.created_at) AS out
                       FROM sent JOIN seen USING (ts) JOIN pushes p ON p.id = sent.push_id::uuid)
            SELECT count(*) || ': sent by the worker p50 ' || \(pcts("out")) || '; received by the simulator p50 ' || \(pcts("first"))
                   || ', max ' || round(1000 * max(first)) || ' ms' FROM d
            """, try await self.simulator.broadcasts(channel: self.liveChannel))
    }
}
