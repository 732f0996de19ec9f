import Foundation
import Synchronization

/// One ledger's checks of its starts' attempt partitions (`AttemptStatisticsStatement`), one at a time: the chunks in
/// flight finish together, and each that found the partition due would analyze it again (11-24 `ANALYZE`s of one
/// partition in a million-token start, each making every plan on it again; 2 with this). A worker has two ledgers,
/// its batches' and its express lane's, so two checks at most. While one check runs, the others skip theirs and are
/// not tried again: the next chunk asks. A start whose last chunks take the partition past the threshold (160 pages,
/// about 7,000 attempts) and skipped their check leaves the partition to autovacuum, in its own time.
final class AttemptStatistics: Sendable {
    private let checking = Mutex(false)

    /// `AttemptStatisticsStatement.refresh`, unless a check is running; the partition it asked to analyze, if any.
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
