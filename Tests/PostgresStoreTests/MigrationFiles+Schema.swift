import Foundation
import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct MigrationFilesTests {
    static let directory: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path + "/sql"
    }()

    @Test func theBuildKnowsTheNewestMigration() throws {
        let files = try MigrationFiles.load(directory: Self.directory)
        #expect(files.map(\.version) == Array(1...files.count))
        #expect(files.count == Schema.version)
    }

    @Test func gapsAreRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mig-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "SELECT 1;".write(toFile: dir + "/0001_a.sql", atomically: true, encoding: .utf8)
        try "SELECT 1;".write(toFile: dir + "/0003_c.sql", atomically: true, encoding: .utf8)
        #expect(throws: MigrationError.self) { try MigrationFiles.load(directory: dir) }
    }
}
