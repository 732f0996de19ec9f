import Foundation

/// A program the bench starts and stops (gateway, worker, simulator): Foundation's `Process`, waited for by polling so
/// that no thread of the cooperative pool blocks. Short programs (`scripts/pg.sh`, `swift build`) run by `output`,
/// through `ShortProgram`.
// @unchecked: its stored properties are `let`s set at start; `Process` is not marked Sendable, but the methods used
// after the start (pid, isRunning, terminate, signals) are safe from any thread (Foundation locks the process's state).
final class ChildProcess: @unchecked Sendable {
    private let process: Process
    let name: String

    private init(_ process: Process, name: String) {
        self.process = process
        self.name = name
    }

    var pid: Int32 { self.process.processIdentifier }
    var isRunning: Bool { self.process.isRunning }

    /// Starts `executable` with `arguments`; its output goes to `log` (appended), else nowhere.
    static func start(
        _ executable: String, _ arguments: [String] = [], environment: [String: String], log: String? = nil
    ) throws -> ChildProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        if let log {
            if !FileManager.default.fileExists(atPath: log) {
                _ = FileManager.default.createFile(atPath: log, contents: nil)
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            handle.seekToEndOfFile()
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return ChildProcess(process, name: (executable as NSString).lastPathComponent)
    }

    /// Runs a short program to its end and returns what it printed (trimmed); throws when it fails.
    static func output(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil
    ) async throws -> String {
        // Files, not pipes: a daemon it starts (pg_ctl's postgres) would hold a pipe open, and reading to its end
        // would wait for that daemon.
        let base = NSTemporaryDirectory() + "lagw-bench-\(UUID().uuidString)"
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        let status = try await ShortProgram.run(
            executable, arguments, environment: environment, stdout: base + ".out", stderr: base + ".err")
        let o = FileManager.default.contents(atPath: base + ".out") ?? Data()
        let e = FileManager.default.contents(atPath: base + ".err") ?? Data()
        guard status == 0 else {
            throw BenchError(
                "\(executable) \(arguments.joined(separator: " ")) exited \(status): "
                    + String(decoding: e, as: UTF8.self))
        }
        return String(decoding: o, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func signal(_ signal: Int32) {
        if self.process.isRunning { kill(self.pid, signal) }
    }

    /// Whether it ended within `seconds`.
    func waitForExit(seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while self.process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        return !self.process.isRunning
    }
}
