import Foundation
import Synchronization

/// One worker's checks of its starts' attempt partitions (`AttemptStatisticsStatement`), one at a time: the chunks in
/// flight finish together, and each that found the partition due would analyze it again (22-24 `ANALYZE`s of one
/// partition in a million-token start, each making every plan on it again). While one check runs, the others skip
/// theirs; the next chunk's asks again.
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
