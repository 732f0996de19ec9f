import Foundation
import PostgresDatabase
import PostgresNIO

/// Confirms the start attempts a device's instance answers, on channels `$2` of app `$1` under name `$3`: an instance
/// no start claims yet, started since a pending attempt's push was created and within the attempt's window, makes
/// that attempt `started`, and the newest such attempt's push claims the instance. Answers the instances claimed.
///
/// Why a statement of its own, run after a commit: a start's chunk record (the worker) and the device's track call
/// (the gateway) each confirm what they find of the other, but under read committed two statements that overlap see
/// neither's rows, and the attempt stayed `pending` although the activity started (the device end-to-end test caught
/// it on a loaded CI machine). So each side, after its own write committed, runs this statement: the worker for the
/// channels of the chunk it recorded, the gateway for an instance it started unclaimed on a channel with a
/// push-to-start token for the instance's type (without one, no start was sent there). Of two overlapping writes,
/// the one that commits second commits before the other side's follow-up begins, so one of the two follow-ups sees
/// both rows.
///
/// The track statement still confirms what it sees itself: with every start confirmed here instead (one statement
/// and one commit more per start), `make bench-registry` lost 44% of its calls per second (2,032/s against 3,617/s,
/// PostgreSQL 487 us per call against 185 us, a third of its calls starts that confirm a pending attempt): what a
/// rotation alone gained without the start attempts in its plan (20% of PostgreSQL's CPU per statement under
/// `pgbench`, one call per statement) did not make up for a start's extra statement and commit.
struct ConfirmStartsStatement: PostgresPreparedStatement, NamedStatement {
    static let name = "lagw_confirm_starts_v2"
    static let sql = """
        WITH found AS (
            SELECT l.id, l.channel_id, l.attributes_type, l.started_at
            FROM unnest($2::uuid[]) AS x(c)
            JOIN live_activities l ON l.channel_id = x.c AND l.app_id = $1::int8 AND l.name = $3::text
            WHERE l.state IN ('active', 'invalid') AND l.start_push_id IS NULL
        ),
        confirmed AS (
            UPDATE start_attempts sa SET outcome = 'started', started_at = f.started_at
            FROM found f
            WHERE sa.channel_id = f.channel_id AND sa.app_id = $1::int8 AND sa.name = $3::text
              AND sa.attributes_type = f.attributes_type AND sa.outcome = 'pending' AND sa.window_until > now()
              AND \(StartAttemptBound.pushCreated("sa", windowEndsAfter: "now()"))
              AND sa.push_created_at <= f.started_at
            RETURNING sa.channel_id, sa.push_id, sa.accepted_at
        )
        UPDATE live_activities l
        SET start_push_id = (SELECT c.push_id FROM confirmed c WHERE c.channel_id = l.channel_id
                             ORDER BY c.accepted_at DESC LIMIT 1)
        FROM found f
        WHERE l.id = f.id AND l.app_id = $1::int8 AND l.start_push_id IS NULL
          AND EXISTS (SELECT 1 FROM confirmed c WHERE c.channel_id = l.channel_id)
        RETURNING l.id
        """

    var appID: Int64
    var channels: [UUID]
    var name: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(self.appID)
        bindings.append(self.channels)
        bindings.append(self.name)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }

    /// Runs it, prepared (planned once per connection: its update's plan holds every partition of `start_attempts`,
    /// all but the recent ones pruned as it starts, `StartAttemptBound`);
    /// how many instances it claimed. A failure is logged, not thrown: the write it follows committed, and the
    /// caller's answer must say so (a retried track call finds its instance unchanged and looks no more; a record
    /// is not run again); what is lost is one start counted `not_started` that started.
    @discardableResult
    static func run(appID: Int64, channels: [UUID], name: String, in database: Database) async -> Int {
        let statement = Self(appID: appID, channels: channels, name: name)
        var claimed = 0
        do {
            for try await _ in try await database.client.execute(statement, logger: database.logger) { claimed += 1 }
        } catch {
            database.logger.warning(
                "start confirmation after a commit failed", metadata: ["error": "\(String(reflecting: error))"])
        }
        return claimed
    }
}
