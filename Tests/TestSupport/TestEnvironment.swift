import Foundation
import Logging

/// Where the tests find the repository, and the logger that keeps what they start quiet.
public enum TestEnvironment {
    public static let repoRoot: String = {
        if let root = ProcessInfo.processInfo.environment["LAGW_REPO_ROOT"] { return root }
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    public static var migrationsDirectory: String { repoRoot + "/sql" }

    public static let quietLogger: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()
}
