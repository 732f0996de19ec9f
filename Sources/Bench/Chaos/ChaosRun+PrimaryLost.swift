import Foundation

extension ChaosRun {
    /// primary-lost's fault: the 202s answered so far noted, the primary SIGKILLed (keeper and postgres) and its data
    /// directory made unreadable by `scripts/pg-ha.sh kill-primary`; returns once the monitor has the standby promoted
    /// and writable, with the bench's connection moved to it.
    func killPrimary() async throws {
        guard let formation = self.formation else {
            throw BenchError("primary-lost runs on scripts/pg-ha.sh's formation (ChaosPrimaryLost)")
        }
        let script = self.stack.repository.root + "/scripts/pg-ha.sh"
        let held =
            Int(
                (try? await self.db.text("SELECT count(*) FROM jobs WHERE kind = 'push.batch' AND state = 'running'"))
                    ?? "") ?? 0
        let accepted = [self.currentPush] + self.trickle.snapshot().filter { $0.status == 202 }.map(\.pushID)
        let killedAt = Self.now()
        let lost = try await ChildProcess.output("/usr/bin/env", [script, "kill-primary", formation])
        let deadline = try self.stack.knobs.int("DEADLINE", 240)
        var promoted = ""
        await Poll.until(tries: deadline * 5, every: .milliseconds(200)) {
            promoted = (try? await ChildProcess.output("/usr/bin/env", [script, "primary", formation])) ?? ""
            return !promoted.isEmpty && promoted != lost
        }
        guard !promoted.isEmpty && promoted != lost else {
            throw BenchError("primary-lost: no standby promoted \(deadline) s after the kill")
        }
        let promotedAt = Self.now()
        let old = self.db
        self.db = BenchDatabase(host: "127.0.0.1", port: try ChaosPrimaryLost.port(formation, promoted))
        await old.close()
        self.primaryLost = ChaosPrimaryLost.Fault(
            lostNode: lost, promotedNode: promoted, killedAt: killedAt, promotedAt: promotedAt, accepted: accepted,
            heldBatches: held)
        self.notes.append(
            "   primary-lost: node \(lost) killed at \(String(format: "%.3f", killedAt)) with \(held) batches held by "
                + "workers; node \(promoted) promoted (writable) \(String(format: "%.1f", promotedAt - killedAt)) s "
                + "later")
    }
}
