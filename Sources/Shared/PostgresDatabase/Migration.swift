import Crypto
import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// A numbered migration file, `sql/0001_init.sql`.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    public var checksum: String {
        SHA256.hash(data: Data(self.sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

public struct MigrationError: Error, CustomStringConvertible {
    public let description: String

    package init(description: String) {
        self.description = description
    }
}
