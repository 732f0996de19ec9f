import Foundation

/// The checkout the bench runs in: its `scripts/pg.sh` and `scripts/free-port.sh` (bash kept for those two), its
/// `sql/`, and the release binaries to run (`BIN_DIR`, else built here now).
struct Repository: Sendable {
    let root: String

    /// The current directory or the nearest parent holding `scripts/pg.sh` (`make` runs from the root).
    static func find() throws -> Repository {
        var dir = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        while true {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("scripts/pg.sh").path) {
                return Repository(root: dir.path)
            }
            let parent = dir.deletingLastPathComponent()
            guard parent.path != dir.path else { throw BenchError("run the bench inside the repository") }
            dir = parent
        }
    }

    func freePort() async throws -> Int {
        let out = try await ChildProcess.output(self.root + "/scripts/free-port.sh")
        guard let port = Int(out) else { throw BenchError("free-port.sh printed '\(out)'") }
        return port
    }

    /// `scripts/pg.sh COMMAND DIR [...]`; `listen` sets PG_LISTEN, `prefix` runs it under e.g. `ip netns exec`.
    func pg(_ arguments: [String], listen: String? = nil, prefix: [String] = []) async throws {
        var environment = ProcessInfo.processInfo.environment
        if let listen { environment["PG_LISTEN"] = listen }
        let command = prefix + [self.root + "/scripts/pg.sh"] + arguments
        _ = try await ChildProcess.output(
            "/usr/bin/env", command, environment: environment)
    }

    /// The directory of gateway, worker and apns-sim: `BIN_DIR`, else this checkout's release build of `products`.
    func binaries(_ knobs: Knobs, products: [String]) async throws -> String {
        if let dir = knobs.optional("BIN_DIR") { return dir }
        for product in products {
            _ = try await ChildProcess.output(
                "/usr/bin/env", ["swift", "build", "--package-path", self.root, "-c", "release", "--product", product])
        }
        return try await ChildProcess.output(
            "/usr/bin/env", ["swift", "build", "--package-path", self.root, "-c", "release", "--show-bin-path"])
    }

    /// A fresh directory like `mktemp -d /tmp/lagw-NAME.XXXXXX`, readable by the PostgreSQL user.
    static func workDirectory(_ name: String) throws -> String {
        var template = Array("/tmp/lagw-\(name).XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("mkdtemp failed") }
        let path = String(cString: made)
        chmod(path, 0o755)
        return path
    }
}
