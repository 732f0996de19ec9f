import Crypto
import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// What `sql/` holds for the migrator: the numbered migrations (a collection of them, in version order) and the views
/// of `sql/views/`, in dependency order. `sql/schema.sql` is generated from them (`make schema`) and not read.
public struct MigrationFiles: Sendable, RandomAccessCollection, MutableCollection {
    public var migrations: [Migration]
    public let views: [ViewDefinition]

    public init(migrations: [Migration], views: [ViewDefinition] = []) throws {
        self.migrations = migrations
        self.views = try ViewDefinition.inDependencyOrder(views)
    }

    public var startIndex: Int { self.migrations.startIndex }
    public var endIndex: Int { self.migrations.endIndex }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }
    public subscript(position: Int) -> Migration {
        get { self.migrations[position] }
        set { self.migrations[position] = newValue }
    }

    /// The generated whole schema, which sits beside the migrations.
    static let generatedSchema = "schema.sql"

    /// Reads `NNNN_name.sql` files from `directory`, in version order (versions must be 1, 2, 3, ... without gaps),
    /// and `directory/views/<view>.sql` when that directory exists.
    public static func load(directory: String) throws -> MigrationFiles {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw MigrationError(description: "cannot read migrations directory '\(directory)'")
        }
        var migrations: [Migration] = []
        for file in names where file.hasSuffix(".sql") && file != Self.generatedSchema {
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
        return try MigrationFiles(migrations: migrations, views: Self.loadViews(directory: directory + "/views"))
    }

    /// `<view>.sql` files, each named after the view it defines; none when the directory does not exist.
    static func loadViews(directory: String) throws -> [ViewDefinition] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
        else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw MigrationError(description: "cannot read views directory '\(directory)'")
        }
        return try names.filter { $0.hasSuffix(".sql") }.sorted().map { file in
            let sql = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            return try ViewDefinition(name: String(file.dropLast(4)), sql: sql)
        }
    }
}
