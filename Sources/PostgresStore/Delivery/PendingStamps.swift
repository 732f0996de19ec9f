/// SQL that reads an instance's last push with its pending stamps merged in (`sql/0024_pending_stamps.sql`), for
/// readers of a few instances at a time (a channel lookup, a tap's attribution). Each pending push of the instance's
/// name has at most one row whose channel range holds the instance's channel (a chunk re-sent after a crash may add a
/// second), found in the index on `(push_id, last_channel, first_channel)`; the instance is in it if its id is in the
/// row's array (up to a chunk's worth, 1,000 ids).
enum PendingStamps {
    /// `FROM ... WHERE ...` of the pending rows that hold instance `l` (an alias of `live_activities`), as `dp` (the
    /// push) and `s` (its row).
    static func rows(of l: String) -> String {
        """
        FROM delivery_stamp_pushes dp JOIN delivery_stamps s ON s.push_id = dp.push_id
        WHERE dp.app_id = \(l).app_id AND dp.activity_name = \(l).name
          AND s.last_channel >= \(l).channel_id AND s.first_channel <= \(l).channel_id AND \(l).id = ANY(s.instance_ids)
        """
    }

    /// The time of the last update delivered to instance `l`.
    static func lastUpdate(of l: String) -> String {
        "greatest(\(l).last_update_at, (SELECT max(s.delivered_at) \(Self.rows(of: l))))"
    }

    /// The last push delivered to instance `l`, in `PushOrder`.
    static func lastPush(of l: String) -> String {
        """
        coalesce((SELECT dp.push_id \(Self.rows(of: l))
                    AND (dp.apns_timestamp, dp.push_seq)
                        > (coalesce(\(l).last_apns_timestamp, 0), coalesce(\(l).last_push_seq, 0))
                  ORDER BY dp.apns_timestamp DESC, dp.push_seq DESC LIMIT 1), \(l).last_push_id)
        """
    }
}
