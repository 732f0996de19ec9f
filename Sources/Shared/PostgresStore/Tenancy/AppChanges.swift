import Logging
import PostgresNIO

/// `LISTEN app_changed`: the key of each app whose row changed or went (`sql/0018_app_changes.sql`).
public struct AppChanges: Sendable {
    public static let channel = "app_changed"

    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Calls `onListening` once the connection listens, then `onChange` with each app key, until cancelled; throws
    /// when the connection is lost (a caller that listens again should assume it missed changes meanwhile).
    public func listen(
        onListening: @escaping @Sendable () async -> Void, onChange: @escaping @Sendable (String) async -> Void
    ) async throws {
        try await self.database.client.withConnection { connection in
            try await connection.listen(on: Self.channel) { notifications in
                await onListening()
                for try await notification in notifications { await onChange(notification.payload) }
            }
        }
    }
}
