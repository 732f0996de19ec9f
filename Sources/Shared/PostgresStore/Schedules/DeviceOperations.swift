import Foundation
import Logging
import PostgresDatabase
import PostgresNIO

/// `Idempotency-Key` on the device calls that create (sql/0028): the first answer per (app, channel, route, key) is
/// stored in the transaction of the write it answers. A repeat writes nothing and answers the stored answer; a
/// concurrent repeat waits on the first one's key (the unique index) and then does the same, or writes if the first
/// rolled back. Failed calls store nothing (their transaction rolls back), so a retry after an error tries again.
enum DeviceOperations {
    enum Route: String {
        case activityUpdate = "activity_update"
        case launch
    }

    /// Runs `write` on `connection` (inside the caller's transaction) once per key; `replayed` when the answer is a
    /// stored one. Without a key, just runs `write`.
    static func once<Answer: Codable & Sendable>(
        appID: Int64, channelID: UUID, route: Route, key: String?, on connection: DatabaseConnection, logger: Logger,
        write: (DatabaseConnection) async throws -> Answer
    ) async throws -> (answer: Answer, replayed: Bool) {
        guard let key else { return (try await write(connection), false) }
        let claimed = try await connection.execute(
            try ActivityJobStatements.ClaimOperation.prepared(appID, channelID, route.rawValue, key), logger: logger)
        var claimedID: Int64?
        for try await id in claimed.decode(Int64.self) { claimedID = id }
        if let claimedID {
            let answer = try await write(connection)
            let json = String(decoding: try JSONEncoder().encode(answer), as: UTF8.self)
            try await connection.execute(
                try ActivityJobStatements.StoreOperationAnswer.prepared(json, claimedID), logger: logger)
            return (answer, false)
        }
        let stored = try await connection.execute(
            try ActivityJobStatements.StoredOperationAnswer.prepared(appID, channelID, route.rawValue, key),
            logger: logger)
        for try await response in stored.decode(String.self) {
            return (try JSONDecoder().decode(Answer.self, from: Data(response.utf8)), true)
        }
        // Not the app's channel (nothing claimed, nothing stored): the write answers that.
        return (try await write(connection), false)
    }
}
