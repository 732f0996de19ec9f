import Foundation

/// Where the `InstallRecord` lives: the Keychain on Apple platforms (`KeychainInstallStore`), a file elsewhere
/// (`FileInstallStore`).
public protocol InstallStore: Sendable {
    func load() throws -> InstallRecord?
    func save(_ record: InstallRecord) throws
    func clear() throws
}

extension InstallStore where Self == FileInstallStore {
    /// A file in the given directory.
    public static func file(in directory: URL) -> FileInstallStore { FileInstallStore(directory: directory) }
}
