import Foundation

extension FanoutRun {
    /// p50 and p99 in ms of `column`, in SQL that builds the printed text.
    static func percentiles(_ column: String) -> String {
        """
        round(1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY \(column))) || ' ms, p99 '
            || round(1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY \(column))) || ' ms'
        """
    }

    /// Prints `text` with every line indented by `indent`, as the script's `sed 's/^/   /'`.
    static func show(_ text: String, _ indent: String = "   ") {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { print(indent + line) }
    }

    /// (ts, 'push id') pairs for a VALUES list.
    static func pairs(_ ts: ArraySlice<Int>, _ ids: ArraySlice<String>) -> String {
        zip(ts, ids).map { "(\($0),'\($1)')" }.joined(separator: ",")
    }

    func report() async throws {
        let pcts = Self.percentiles
        print("== results")
        Self.show(
            try await self.db.text(
                """
                SELECT 'fan-out: ' || state || ', targeted ' || targeted || ', accepted ' || accepted || ', failed ' || failed
                       || ', POST -> last APNs answer ' || round(extract(epoch FROM finished_at - created_at)::numeric, 2) || ' s'
                       || ' (queue + resolve ' || round(extract(epoch FROM started_at - created_at)::numeric, 2) || ' s, then send + record '
                       || round(extract(epoch FROM finished_at - started_at)::numeric, 2) || ' s)'
                FROM push_report WHERE push_id = '\(self.bigID)'
                """))
        let singles = self.accepts.singles.sorted()
        if !singles.isEmpty {
            let at = { (q: Double) in
                1000 * singles[min(singles.count - 1, Int((Double(singles.count) * q).rounded(.down)))]
            }
            print(
                String(
                    format:
                        "   POST -> 202 accepted: the fan-out's push %.1f ms; the other app's %d single updates p50 %.1f ms, p99 %.1f ms",
                    1000 * self.accepts.big, singles.count, at(0.5), at(0.99)))
        }
        let stats = try await self.simulator.statsText()
        print("   simulator: \(stats)")
        let ids = self.smalls.ids.isEmpty ? "NULL" : self.smalls.ids.map { "'\($0)'" }.joined(separator: ",")
        Self.show(
            try await self.db.text(
                """
                WITH d AS (
                    SELECT extract(epoch FROM finished_at - created_at) AS total, extract(epoch FROM started_at - created_at) AS claim,
                           extract(epoch FROM finished_at - started_at) AS send, extract(epoch FROM first_request_at - created_at) AS first
                    FROM push_report WHERE push_id IN (\(ids)))
                SELECT 'other app: ' || count(*) || ' single updates during the fan-out, POST -> APNs request: p50 '
                       || \(pcts("first")) || ', max ' || round(1000 * max(first)) || ' ms'
                       || E'\\n  POST -> APNs answer recorded: p50 ' || \(pcts("total")) || ', max ' || round(1000 * max(total)) || ' ms'
                       || E'\\n  of which POST -> claimed and resolved: p50 ' || \(pcts("claim"))
                       || '; then sent and recorded: p50 ' || \(pcts("send"))
                FROM d
                """))
        // The slowest three, and when each was posted: a tail made at the fan-out's start (pools opening) is not
        // one made throughout.
        Self.show(
            try await self.db.text(
                """
                WITH big AS (SELECT created_at FROM pushes WHERE id = '\(self.bigID)'),
                     d AS (SELECT extract(epoch FROM r.first_request_at - r.created_at) AS first,
                                  extract(epoch FROM r.started_at - r.created_at) AS claim, r.created_at
                           FROM push_report r WHERE r.push_id IN (\(ids)) ORDER BY 1 DESC NULLS LAST LIMIT 3)
                SELECT '  slowest: ' || string_agg(round(1000 * d.first) || ' ms (' || round(1000 * d.claim) || ' to resolve) posted at +'
                       || round(extract(epoch FROM d.created_at - big.created_at)::numeric, 2) || ' s', ', ' ORDER BY d.first DESC)
                FROM d, big
                """))
        // The same single updates timed where APNs would see them: the simulator records when each arrived (its
        // token is on its record list), and its APNs timestamp says which POST it came from.
        let notes = try await self.simulator.notifications(token: Self.soloToken)
        let sent = Self.pairs(self.smalls.ts[...], self.smalls.ids[...])
        if !sent.isEmpty {
            Self.show(
                try await self.db.text(
                    """
                    WITH sent(ts, push_id) AS (VALUES \(sent)),
                         seen AS (SELECT (n -> 'body' -> 'aps' ->> 'timestamp')::bigint AS ts, (n ->> 'received_at')::float8 AS at
                                  FROM jsonb_array_elements($1::jsonb) n),
                         d AS (SELECT seen.at - extract(epoch FROM p.created_at) AS first
                               FROM sent JOIN seen USING (ts) JOIN pushes p ON p.id = sent.push_id::uuid)
                    SELECT '  POST -> request received by the simulator: ' || count(*) || ' of them, p50 ' || \(pcts("first"))
                           || ', max ' || round(1000 * max(first)) || ' ms'
                    FROM d
                    """, notes))
        }
        try await self.phases()
        try await self.statements()
    }

    /// Each worker's phase times (summed over workers: chunks run in parallel, so sums exceed wall time) and CPU.
    func phases() async throws {
        print("   phase time summed over workers (chunks run in parallel, so sums exceed wall time):")
        var sums: [String: Double] = [:]
        var counts: [String: Int] = [:]
        for (i, worker) in self.workers.enumerated() {
            let metrics = try await self.stack.http.get("http://127.0.0.1:\(worker.port)/metrics").text
            for line in metrics.split(separator: "\n") where line.hasPrefix("worker_push_phase_seconds_") {
                let isSum = line.hasPrefix("worker_push_phase_seconds_sum")
                guard isSum || line.hasPrefix("worker_push_phase_seconds_count"),
                    let start = line.range(of: "phase=\""),
                    let value = line.split(separator: " ").last.flatMap({ Double($0) })
                else { continue }
                let phase = String(line[start.upperBound...].prefix { $0 != "\"" })
                if isSum { sums[phase, default: 0] += value } else { counts[phase, default: 0] += Int(value) }
            }
            print(String(format: "   worker %d CPU: %.1f s", i + 1, self.cpu.workers[i]))
        }
        for phase in sums.keys.sorted() {
            print(
                "     " + phase.padding(toLength: max(7, phase.count), withPad: " ", startingAt: 0)
                    + String(format: " %8.1f s over %d runs", sums[phase]!, counts[phase] ?? 0))
        }
        print(String(format: "   simulator CPU: %.1f s", self.cpu.simulator))
        // Waiting on round trips: with S streams in flight at most, N answers that each take the latency need at
        // least N x latency / S seconds, whatever the CPUs do.
        let stats = try await self.simulator.stats()
        let (n, latency) = (self.settings.n, self.settings.simLatencyMS)
        let (conns, streams) = (stats.connectionsTotal, stats.maxStreamsInFlight)
        let bound =
            conns * streams > 0
            ? String(format: "%.1f", Double(n * latency) / 1000 / Double(conns * streams)) : "n/a"
        print(
            "   round trips: \(conns) connections, at most \(streams) streams in flight on one; "
                + "\(n) x \(latency) ms / (\(conns) x \(streams)) = \(bound) s at the least")
        print(String(format: "   postgres CPU: %.1f s", self.cpu.postgres))
    }

    /// The chunk selects' index use, and PostgreSQL's statements by time (pg_stat_statements up to the push's end).
    func statements() async throws {
        // The chunk selects read the covering index alone (sql/0025) while the instances' pages are all-visible.
        print(
            try await self.db.text(
                """
                SELECT '   targets index: ' || idx_tup_read || ' entries read, ' || idx_tup_fetch || ' rows fetched from the heap'
                FROM pg_stat_user_indexes WHERE indexrelname = 'live_activities_targets'
                """))
        print(
            "   postgres statements by total execution time, with planning time (pg_stat_statements, up to the end of"
                + " the push):")
        for line in try await self.db.rows(
            #"""
            SELECT lpad(round((total_exec_time / 1000)::numeric, 1)::text, 6) || ' s + plan ' || round((total_plan_time / 1000)::numeric, 1) || ' s ' || lpad(calls::text, 8) || ' calls '
                   || lpad(rows::text, 9) || ' rows  ' || left(regexp_replace(query, '\s+', ' ', 'g'), 90)
            FROM bench_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            ORDER BY total_exec_time DESC LIMIT 8
            """#)
        {
            print("     " + line)
        }
        // Planning in all (issue 50): what a statement run unprepared, or a prepared one replanned, costs per call.
        print(
            try await self.db.text(
                #"""
                SELECT '   planning, all statements: ' || round((sum(total_plan_time) / 1000)::numeric, 2) || ' s over '
                       || sum(plans) || ' plans of ' || sum(calls) || ' calls; execution '
                       || round((sum(total_exec_time) / 1000)::numeric, 1) || ' s'
                FROM bench_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
                """#))
    }
}
