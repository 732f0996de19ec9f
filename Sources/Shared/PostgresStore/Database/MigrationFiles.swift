import Crypto
import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

public enum MigrationFiles {
    /// Reads `NNNN_name.sql` files from `directory`, in version order; versions must be 1, 2, 3, ... without gaps.
    public static func load(directory: String) throws -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw MigrationError(description: "cannot read migrations directory '\(directory)'")
        }
        var migrations: [Migration] = []
        for file in names where file.hasSuffix(".sql") {
            let stem = file.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]) else {
                throw MigrationError(description: "migration file '\(file)' is not named NNNN_name.sql")
            }
            let sql = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            migrations.append(
                Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (index, migration) in migrations.enumerated() where migration.version != index + 1 {
            throw MigrationError(
                description:
                    "migration versions must run 1, 2, 3 ... without gaps; found \(migration.version) at position \(index + 1)"
            )
        }
        return migrations
    }
}
