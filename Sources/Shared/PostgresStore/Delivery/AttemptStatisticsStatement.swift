import Foundation
import Logging
import PostgresDatabase
import PostgresNIO

/// The week's `start_attempts` partition that push `$1` of app `$2` writes its attempts into, named when its
/// statistics still describe it as smaller than `pages` (`$3`) pages and it has grown past them: it is then due an
/// `ANALYZE`. No row otherwise, nor for a push whose week has no partition of its own (the default one). Catalog reads
/// only (`pg_class` by oid, the file's size), and the push's row by its key.
///
/// Why: a prepared statement's generic plan is costed on its tables' sizes when it is made (as last analyzed, scaled
/// to the file's size then) and kept until something invalidates it (an `ANALYZE`, a `VACUUM`). One made while the
/// week's partition was analyzed empty or small (a database-wide `VACUUM ANALYZE`; autovacuum analyzes it after 50
/// rows) reads it by a sequential scan, cheaper than an index probe on a table of a page or none, and goes on doing
/// so as a start writes a million attempts into it in seconds, long before autovacuum (a pass a minute at most)
/// analyzes it again. Measured on the fan-out bench's database (`EXPLAIN ANALYZE` of a generic plan made on the
/// partition analyzed empty, then run after a million attempts were written, docs/benchmarks.md): the track
/// statement's probe for a started instance's pending attempt, 119 ms a call instead of an index probe; the report's
/// count of confirmed starts, 218 ms a call (8.8 s of PostgreSQL's 25 s in a million-token start's bench, which polls
/// it). The devices that a start reaches register their instances within seconds of it: exactly then.
///
/// Only a start's chunk record writes attempts, so the worker, after recording one, asks this and analyzes what it
/// names (`refresh`): every cached plan on the partition is then made again at its next run, on the partition's size
/// then, and its statistics normally stay past the threshold (a week's partition grows; only a forgotten channel's
/// attempts are deleted from it). PostgreSQL's advice for the same case: "Whenever you have significantly altered the
/// distribution of data within a table, running ANALYZE is strongly recommended. This includes bulk loading large
/// amounts of data into the table" (the `ANALYZE` page).
struct AttemptStatisticsStatement: PostgresPreparedStatement, NamedStatement {
    static let name = "lagw_attempt_statistics_v2"
    static let sql = """
        SELECT c.oid::regclass::text
        FROM pushes p
        JOIN pg_class c ON c.oid = to_regclass(
            'start_attempts_p' || to_char(history_week(p.created_at) AT TIME ZONE 'UTC', 'YYYYMMDD'))
        WHERE p.id = $1::uuid AND p.app_id = $2::int8
          AND c.relpages < $3::int4 AND pg_relation_size(c.oid) >= $3::int4 * current_setting('block_size')::int8
        """

    /// 160 pages, about 7,000 attempts. Below it a sequential scan of the partition costs little whatever the plan;
    /// past it the planner costs a scan of the partition at tens of times a probe's few pages (the report's generic
    /// plan turned to the index at 12,000 attempts: `StartAttemptStatisticsTests`). Not 16: generic plans of a
    /// prepared start select (tried, not kept), made after the partition was analyzed at 16 pages, still read it by
    /// sequential scans as it grew (150,045 of them, 74 million rows, in one million-token start; statements past their
    /// timeout). Nor each tenfold (16, 160, 1,600, 16,000 pages): 6-9 `ANALYZE`s of up to 30,000 sampled pages a start,
    /// 1.2-3.4 s of statement time, for plans that a larger sample would not change.
    static let pages: Int32 = 160

    var pushID: UUID
    var appID: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(self.pushID)
        bindings.append(self.appID)
        bindings.append(Self.pages)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }

    /// Asks, and asks PostgreSQL to analyze the partition named (`SKIP_LOCKED`: one that autovacuum or another worker
    /// is analyzing already is left to it, with a warning and no wait for its lock; a role that does not own the table
    /// gets a warning too). The chunk that asked waits for the `ANALYZE` itself (its record phase, a few milliseconds
    /// for a partition just past the threshold) before its batch's next chunk. A failure is logged, not thrown: the
    /// record it follows committed; what is lost is fresh statistics until the next chunk asks again. Answers the
    /// partition it asked to analyze.
    @discardableResult
    static func refresh(pushID: UUID, appID: Int64, in database: Database) async -> String? {
        do {
            var due: String?
            for try await partition in try await database.client.execute(
                Self(pushID: pushID, appID: appID), logger: database.logger)
            {
                due = partition
            }
            guard let due else { return nil }
            // An identifier PostgreSQL quoted itself (`regclass` to text), not a value: it cannot be bound.
            try await database.client.query(
                PostgresQuery(unsafeSQL: "ANALYZE (SKIP_LOCKED) \(due)"), logger: database.logger)
            database.logger.info(
                "analyze requested of a start_attempts partition past its statistics", metadata: ["partition": "\(due)"]
            )
            return due
        } catch {
            database.logger.warning(
                "start_attempts statistics check failed", metadata: ["error": "\(String(reflecting: error))"])
            return nil
        }
    }
}
