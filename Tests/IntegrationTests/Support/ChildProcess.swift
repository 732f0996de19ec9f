import Foundation

/// A program the tests run (a compiler, a built check program), to its end or its deadline.
enum ChildProcess {
    /// Runs `path` to its end (killed at the deadline: SIGTERM, then SIGKILL after 10 s); its exit status (-1 when it
    /// was killed) and what it printed, stdout and stderr together.
    static func run(
        _ path: String, _ arguments: [String], environment: [String: String] = [:], deadline: Duration = .seconds(60)
    ) async throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("lagw-child-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let end = ContinuousClock.now + deadline
        while process.isRunning && ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(20)) }
        var timedOut = false
        if process.isRunning {
            timedOut = true
            process.terminate()
            let killed = ContinuousClock.now + .seconds(10)
            while process.isRunning && ContinuousClock.now < killed { try await Task.sleep(for: .milliseconds(20)) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        if timedOut { return (-1, "\(path) \(arguments) did not finish within \(deadline):\n\(output)") }
        return (process.terminationStatus, output)
    }
}
