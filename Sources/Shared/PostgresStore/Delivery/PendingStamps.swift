/// SQL that reads an instance's last push with its pending stamps merged in (`sql/0024_pending_stamps.sql`), for
/// readers of a few instances at a time (a channel lookup, a tap's attribution). A push's rows hold disjoint channel
/// ranges (a chunk re-sent after a crash may add one overlapping row), so per pending push of the instance's name the
/// first two rows whose range ends at or after the instance's channel (an index range on `(push_id, last_channel)`)
/// are the only ones that can hold it; it is in one if its id is in the row's array (up to a chunk's worth,
/// `PUSH_CHUNK_SIZE` ids).
enum PendingStamps {
    /// `FROM ... WHERE ...` of the pending rows that hold instance `l` (an alias of `live_activities`), as `dp` (the
    /// push) and `s` (its row).
    static func rows(of l: String) -> String {
        """
        FROM delivery_stamp_pushes dp
        CROSS JOIN LATERAL (
            SELECT s.delivered_at, s.first_channel, s.instance_ids FROM delivery_stamps s
            WHERE s.push_id = dp.push_id AND s.last_channel >= \(l).channel_id ORDER BY s.last_channel LIMIT 2) s
        WHERE dp.app_id = \(l).app_id AND dp.activity_name = \(l).name
          AND s.first_channel <= \(l).channel_id AND \(l).id = ANY(s.instance_ids)
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
