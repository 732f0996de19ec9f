/// How long after its push was created a start attempt's window may stay open: 48 hours. `start_attempts` is
/// partitioned by the push's creation (`push_created_at`, a week a partition, the past weeks kept for retention and
/// the next ones made ahead), and its probes ask for windows that end after a time (still open, or open within the
/// last hour). Without a bound on the window after the push those probes read every partition; with it, a probe of
/// windows ending after `t` reads only the pushes created since `t` less the bound: one partition, two in a week's
/// first two days (the other partitions are pruned as the executor starts: `Subplans Removed` in `EXPLAIN`).
///
/// The bound is kept where attempts are written: a chunk's record opens an attempt's window for the app's
/// `start_confirm_window` (at most a day: `start_confirm_seconds` is 1...86,400) but not past the bound, so a start
/// sent more than a day after its push was created gets a shorter window, and one sent 48 hours after or later writes
/// no attempt (it counts `not_started` once the push's window closes, and holds back no other start): every window
/// then ends after its attempt was accepted, which the hourly budget's probe relies on. The table's `CHECK`
/// (sql/0031_start_attempt_bound.sql, validated by 0032) refuses a row past the bound.
enum StartAttemptBound {
    /// The bound as an SQL interval: the migration's `CHECK` states the same.
    static let afterPush = "interval '48 hours'"

    /// The partition bounds of a probe of attempts (alias `alias`) whose window ends after `end` (an SQL expression
    /// the executor knows as it starts, such as `now()`). The lower bound follows from the window's. The upper one
    /// (pushes created by an hour after the statement began) prunes the partitions made ahead: a statement's snapshot
    /// is taken as it starts to execute, and a push's `created_at` is the start of the transaction that inserts it, so
    /// no push the statement can see was created after it began (the hour is slack, not a guess).
    static func pushCreated(_ alias: String, windowEndsAfter end: String) -> String {
        "\(alias).push_created_at > \(end) - \(afterPush)"
            + " AND \(alias).push_created_at < statement_timestamp() + interval '1 hour'"
    }
}
