import PostgresStore

/// The worker's `/healthz`: up only while PostgreSQL answers (within `timeout`) and the job runner's LISTEN
/// connection is up. A worker that lost either cannot do its work, and an orchestrator should restart or drain it.
struct WorkerHealth: Sendable {
    let database: Database
    let listening: ListeningFlag
    var timeout: Duration = .seconds(2)

    /// nil when healthy, else what is wrong.
    func problem() async -> String? {
        guard self.listening.isUp else { return "the LISTEN connection to PostgreSQL is down" }
        let answered = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    try await self.database.client.ping(logger: self.database.logger)
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(for: self.timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        return answered ? nil : "PostgreSQL does not answer"
    }
}
