import Foundation
import Synchronization

/// One ledger's checks of its starts' attempt partitions (`AttemptStatisticsStatement`), one at a time: the chunks in
/// flight finish together, and each that found the partition due would analyze it again (11-24 `ANALYZE`s of one
/// partition in a million-token start, each making every plan on it again; 2 with this). A worker has two ledgers,
/// its batches' and its express lane's, so two checks at most. While one check runs, the others skip theirs and are
/// not tried again: the next chunk asks. After a start's last chunks, which may have skipped, autovacuum analyzes the
/// partition in its own time (a start of 700 to a few thousand tokens can end so).
final class AttemptStatistics: Sendable {
    private let checking = Mutex(false)

    /// `AttemptStatisticsStatement.refresh`, unless a check is running; the partition analyzed, if any.
    @discardableResult
    func refresh(pushID: UUID, appID: Int64, in database: Database) async -> String? {
        let turn = self.checking.withLock { checking in
            if checking { return false }
            checking = true
            return true
        }
        guard turn else { return nil }
        defer { self.checking.withLock { $0 = false } }
        return await AttemptStatisticsStatement.refresh(pushID: pushID, appID: appID, in: database)
    }
}
