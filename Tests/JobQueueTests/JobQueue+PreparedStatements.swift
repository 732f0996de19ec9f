import Foundation
import JobQueue
import LiveActivitiesCore
import PostgresDatabase
import Testing

/// The queue's statements run prepared, under their names: a worker claims, extends, completes and fails jobs for
/// every batch of a fan-out, and unprepared each call was parsed and planned again (the claim's planning, 0.5 ms, cost
/// more than its execution during a million-target fan-out; issue 50). On a pool of one connection, each is prepared
/// there after its first call.
@Suite struct JobQueuePreparedStatementTests {
    @Test func theQueuesStatementsArePreparedOnTheirConnection() async throws {
        try await withTestDatabase(maxConnections: 1) { database in
            let queue = PostgresJobQueue(database: database)
            let ids = try await queue.enqueue([
                JobRequest(kind: "x", appID: 1, maxAttempts: 2), JobRequest(kind: "x", appID: 1, maxAttempts: 2),
            ])
            #expect(ids.count == 2)
            #expect(try await queue.nextDueDate(excludingKinds: ["y"]) != nil)
            let claimed = try await queue.claim(
                limit: 2, owner: "w", lease: .seconds(30), excludingKinds: ["y"], busyApps: [2], inFlight: [0])
            #expect(Set(claimed.map(\.id)) == Set(ids))
            #expect(try await queue.extendLease(ids: ids, owner: "w", lease: .seconds(60)).sorted() == ids.sorted())
            let failed = try await queue.fail(
                [JobFailure(jobID: ids[0], retryAfter: .seconds(60), error: "e")], owner: "w")
            #expect(failed[ids[0]] == .retried)
            try await queue.complete(ids: [ids[1]], owner: "w")

            let prepared = try await database.client.query(
                "SELECT name FROM pg_prepared_statements WHERE name LIKE 'lagw_jobs_%' ORDER BY name")
            var names: [String] = []
            for try await name in prepared.decode(String.self) { names.append(name) }
            #expect(
                names == [
                    "lagw_jobs_claim", "lagw_jobs_complete", "lagw_jobs_enqueue", "lagw_jobs_extend_lease",
                    "lagw_jobs_fail", "lagw_jobs_next_due",
                ])
        }
    }

    /// A claim whose preparation failed (its `Parse` waited out `lock_timeout` behind a lock, as behind a migration)
    /// does not fail on its connection from then on: PostgresNIO keeps a failed preparation and answers every later
    /// call with it, so the connection is closed and the next claim prepares on a new one.
    @Test func aClaimWhosePreparationFailedRunsOnANewConnection() async throws {
        try await withTestDatabaseURL(maxConnections: 1) { database, url in
            let queue = PostgresJobQueue(database: database)
            try await database.client.query("SET lock_timeout = '100ms'")
            try await withDatabase(url, maxConnections: 1) { other in
                try await other.transaction { connection in
                    try await connection.query(
                        "LOCK TABLE jobs IN ACCESS EXCLUSIVE MODE", logger: TestEnvironment.quietLogger)
                    await #expect(throws: (any Error).self) {
                        try await queue.claim(limit: 1, owner: "w", lease: .seconds(30))
                    }
                }
            }
            #expect(try await queue.claim(limit: 1, owner: "w", lease: .seconds(30)).isEmpty)
        }
    }
}
