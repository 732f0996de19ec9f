import Foundation
import LiveActivitiesCore

extension PushTargets {
    /// A start's chunk: the next `limit` push-to-start tokens of `source` in `range`, each with its `TargetHold`.
    ///
    /// A start is held where the name is active on the channel or a start of it (another push's, not `pushID`'s) is
    /// still inside its confirmation window, unless `restart` (`alreadyActive`); where the token's last
    /// `suspect_after_starts` starts since it was registered again were all accepted and none started within its
    /// window, if the app skips suspect tokens (`suspectToken`); and where the channel had its budget of starts in the
    /// last hour (`startBudget`), in that order.
    ///
    /// The holds are read for the chunk at once, not for each target: the chunk's channels (`chunk`, materialized)
    /// are looked up in `live_activities` and in `start_attempts` by one index scan each (`channel_id = ANY`), and a
    /// channel's attempts with windows ending in the last hour or later (what the pending start and the budget ask of;
    /// a window ends after its attempt was accepted: `StartAttemptBound`) are aggregated into what the holds ask of
    /// them; a channel has one active instance of a name at most (`live_activities_current`). The suspect test reads
    /// the token's attempts since it was registered again, latest window first: from that aggregate where the
    /// registration is within the hour (and only on a channel that has attempts), else by a probe of the target's
    /// own (a scan of every attempt since the chunk's oldest registration would read weeks of them a channel).
    /// The four arrays are sorted alike (window, then push: one attempt a push and channel), so their elements line up.
    /// A correlated probe per target, one for each hold, cost about 1.5 us each, most of the select (6.0 ms a chunk of
    /// 1,000 against 3.4 ms for the chunk at once, `EXPLAIN ANALYZE` on a million-token start's database;
    /// docs/benchmarks.md).
    /// The lookups are joined to the chunk by `FULL JOIN`, which is a `LEFT JOIN` here (they find only the chunk's
    /// channels) that PostgreSQL can only run as a hash or merge join: a batch's range makes the planner expect one
    /// row in `chunk`, and a nested loop then ran a lookup of all 1,000 channels once per channel (334 ms a chunk in
    /// the bench, `auto_explain`; a million-token start took 33 s instead of 20).
    /// The attempts' scans read only the partitions of pushes made since the hour began (the probe: since the
    /// registration) less `StartAttemptBound`. The lookups and the probe name the app by its parameter, which is what
    /// Citus routes a statement to one shard by.
    func startChunkSelect(_ sql: inout SQLBuilder, source: String, range: String, limit: Int, pushID: UUID?) -> String {
        let limit = sql.bind(limit)
        let name = sql.bind(self.name ?? "")
        let app = sql.bind(self.appID)
        let own = sql.bind(pushID ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        let restart = sql.bind(self.restart)
        let hour = "now() - interval '1 hour'"
        let sinceRegistered = StartAttemptBound.pushCreated("s", windowEndsAfter: "c.registered_again_at")
        return """
            WITH chunk AS MATERIALIZED (
                SELECT t.channel_id, t.token, t.registered_again_at, a.skip_suspect_tokens, a.suspect_after_starts,
                       a.starts_per_channel_per_hour \(source)\(range)
                ORDER BY t.channel_id LIMIT \(limit)),
            live AS (
                SELECT l.channel_id FROM live_activities l
                WHERE l.channel_id = ANY (ARRAY(SELECT channel_id FROM chunk)) AND l.app_id = \(app)
                  AND l.name = \(name) AND l.state = 'active'
                  AND l.started_at > now() - (SELECT activity_max_age FROM apps WHERE id = \(app))),
            attempts AS (
                SELECT s.channel_id,
                       bool_or(s.window_until > now() AND s.name = \(name) AND s.outcome = 'pending') AS unconfirmed,
                       count(*) FILTER (WHERE s.accepted_at > \(hour)) AS last_hour,
                       array_agg(s.token ORDER BY s.window_until DESC, s.push_id) AS tokens,
                       array_agg(s.accepted_at ORDER BY s.window_until DESC, s.push_id) AS accepted,
                       array_agg(s.window_until ORDER BY s.window_until DESC, s.push_id) AS windows,
                       array_agg(s.outcome = 'pending' AND s.window_until <= now()
                                 ORDER BY s.window_until DESC, s.push_id) AS unanswered
                FROM start_attempts s
                WHERE s.channel_id = ANY (ARRAY(SELECT channel_id FROM chunk)) AND s.app_id = \(app)
                  AND s.window_until > \(hour) AND \(StartAttemptBound.pushCreated("s", windowEndsAfter: hour))
                  AND s.push_id <> \(own)
                GROUP BY s.channel_id)
            SELECT c.channel_id, 0::int8 AS instance_id, ''::text AS row_ref, c.token, NULL::int8 AS last_timestamp,
                   NULL::int8 AS last_seq,
                   (CASE WHEN NOT \(restart) AND (l.channel_id IS NOT NULL OR coalesce(x.unconfirmed, false))
                         THEN \(TargetHold.alreadyActive.rawValue)
                         WHEN c.skip_suspect_tokens AND CASE
                             WHEN c.registered_again_at < \(hour) THEN (
                                 SELECT count(*) = c.suspect_after_starts AND bool_and(y.unanswered)
                                 FROM (SELECT s.outcome = 'pending' AND s.window_until <= now() AS unanswered
                                       FROM start_attempts s
                                       WHERE s.channel_id = c.channel_id AND s.app_id = \(app)
                                         AND s.window_until > c.registered_again_at
                                         AND \(sinceRegistered)
                                         AND s.token = c.token AND s.accepted_at > c.registered_again_at
                                         AND s.push_id <> \(own)
                                       ORDER BY s.window_until DESC, s.push_id LIMIT c.suspect_after_starts) y)
                             WHEN x.channel_id IS NULL THEN false
                             ELSE (
                                 SELECT count(*) = c.suspect_after_starts AND bool_and(y.unanswered)
                                 FROM (SELECT a.unanswered
                                       FROM unnest(x.tokens, x.accepted, x.windows, x.unanswered) WITH ORDINALITY
                                            AS a(token, accepted_at, window_until, unanswered, n)
                                       WHERE a.token = c.token AND a.accepted_at > c.registered_again_at
                                         AND a.window_until > c.registered_again_at
                                       ORDER BY a.n LIMIT c.suspect_after_starts) y) END
                         THEN \(TargetHold.suspectToken.rawValue)
                         WHEN coalesce(x.last_hour, 0) >= c.starts_per_channel_per_hour
                         THEN \(TargetHold.startBudget.rawValue)
                         ELSE 0 END)::int2 AS hold, false AS blocked
            FROM chunk c
            FULL JOIN live l ON l.channel_id = c.channel_id
            FULL JOIN attempts x ON x.channel_id = c.channel_id
            ORDER BY c.channel_id
            """
    }
}
