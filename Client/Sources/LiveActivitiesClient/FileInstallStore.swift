import Foundation

/// The record as a JSON file (written atomically, readable by the owner only). For Linux and for tests; on Apple
/// platforms the default is `KeychainInstallStore`, which keeps the channel secret out of backups.
public struct FileInstallStore: InstallStore {
    public let url: URL

    public init(directory: URL, fileName: String = "live-activities-install.json") {
        self.url = directory.appendingPathComponent(fileName)
    }

    public func load() throws -> InstallRecord? {
        guard FileManager.default.fileExists(atPath: self.url.path) else { return nil }
        return try JSONDecoder().decode(InstallRecord.self, from: Data(contentsOf: self.url))
    }

    public func save(_ record: InstallRecord) throws {
        try FileManager.default.createDirectory(
            at: self.url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(record).write(to: self.url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: self.url.path)
    }

    public func clear() throws {
        guard FileManager.default.fileExists(atPath: self.url.path) else { return }
        try FileManager.default.removeItem(at: self.url)
    }
}
