import Foundation

extension FanoutRun {
    /// An update of the other app's `name` with timestamp `ts`; its push id.
    func otherUpdate(_ name: String, _ ts: Int, audience: PushBody.Audience = .all) async throws -> String {
        try await self.gateway.push(.update(name, timestamp: ts, audience: audience), auth: self.small.master)
    }

    /// A single-activity update: to the only 'solo' activity, or to the next of OTHER_ACTIVITIES by its channel.
    func solo(_ ts: Int) async throws -> String {
        if self.settings.otherActivities == 1 { return try await self.otherUpdate("solo", ts) }
        let channel = self.soloChannels[ts % self.settings.otherActivities]
        return try await self.otherUpdate("solo", ts, audience: .iosChannel(channel))
    }

    /// A broadcast update of the other app's name 'live' (audience all: one request to the broadcast endpoint).
    func cast(_ ts: Int) async throws {
        self.casts.ts.append(ts)
        self.casts.ids.append(try await self.otherUpdate("live", ts))
    }

    /// Whether every worker has sent an update and a broadcast that APNs accepted (its metrics say so).
    func sentByAll() async throws -> Bool {
        for worker in self.workers {
            let metrics = try await self.stack.http.get("http://127.0.0.1:\(worker.port)/metrics").text
            for counter in ["worker_apns_notifications_total", "worker_apns_broadcasts_total"] {
                let prefix = counter + "{outcome=\"accepted\"} "
                let line = metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }
                guard let value = line?.dropFirst(prefix.count).first, ("1"..."9").contains(value) else {
                    return false
                }
            }
        }
        return true
    }

    /// Updates and broadcasts of the other app before the fan-out, not counted, until every worker has sent one of
    /// each: an app that sends a steady flow has each worker's APNs connections open and its credentials and budgets
    /// cached, and a worker's first send (TLS handshakes, the key unsealed, a provider token signed) is not what the
    /// fan-out does to it. (With one warm-up update, the other worker's first could come in the fan-out's first
    /// 50 ms: it read that worker's credentials and budgets on a just-opened connection and was 43 ms late.)
    func warmUp() async throws {
        for _ in 0..<20 {
            self.ts += 1
            let warmID = try await self.solo(self.ts)
            _ = try await self.otherUpdate("live", self.ts)
            await Poll.until(tries: 50, every: .milliseconds(100)) {
                try await self.gateway.state(warmID, auth: self.small.master) == "done"
            }
            if await Poll.until(tries: 3, every: .milliseconds(100), { try await self.sentByAll() }) { break }
        }
        if !((try? await self.sentByAll()) ?? false) {
            print("   (warning: not every worker sent the other app's warm-up update and broadcast)")
        }
    }

    /// The big push, and the other app meanwhile: a single-activity update every 50 ms (55-100 of them, so that
    /// their p99 is not just the slowest one) and a broadcast with every other one. The big push's state is read
    /// over the API, as a client would, every other round.
    func fanOut() async throws {
        try await self.db.run("SELECT pg_stat_statements_reset()")
        print("== POST one \(self.settings.event) to every 'match' target")
        let posted = ContinuousClock.now
        self.bigID = try await self.gateway.push(self.settings.bigBody(), auth: self.big.master)
        self.accepts.big = (ContinuousClock.now - posted).seconds
        print("   push \(self.bigID)")
        var i = 0
        while true {
            if i % 2 == 0 {
                let state = try await self.gateway.state(self.bigID, auth: self.big.master)
                if state == "done" || state == "failed" { break }
            }
            self.ts += 1
            self.smalls.ts.append(self.ts)
            let sent = ContinuousClock.now
            self.smalls.ids.append(try await self.solo(self.ts))
            self.accepts.singles.append((ContinuousClock.now - sent).seconds)
            if i % 2 == 0 { try await self.cast(self.ts) }
            i += 1
            try await Task.sleep(for: .milliseconds(50))
        }
        self.busyCasts = self.casts.ids.count
        // CPU up to the end of the push: what PostgreSQL does after it is measured on its own.
        let before = self.cpu
        self.cpu = (
            zip(self.workers, before.workers).map { ProcessCPU.seconds($0.process.pid) - $1 },
            ProcessCPU.seconds(self.simulatorProcess.pid) - before.simulator,
            ProcessCPU.postgres(dataDirectory: self.stack.pgData) - before.postgres
        )
        try await self.db.run("CREATE TABLE bench_statements AS SELECT * FROM pg_stat_statements")
        try await Task.sleep(for: .seconds(1))
    }
}
