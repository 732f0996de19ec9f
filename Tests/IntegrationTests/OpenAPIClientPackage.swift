import Foundation

/// `Tests/OpenAPIClientCheck`, a SwiftPM package whose client Apple's swift-openapi-generator makes (its build plugin)
/// from an OpenAPI document: copied to `.build-openapi-check-package/` under the repository with the document given,
/// built with the scratch path `.build-openapi-check/` (both kept, so that a second run is incremental: the first
/// compiles the generator, minutes on two cores), and its program run.
enum OpenAPIClientPackage {
    static var source: String { TestEnvironment.repoRoot + "/Tests/OpenAPIClientCheck" }
    static var copy: String { TestEnvironment.repoRoot + "/.build-openapi-check-package" }
    static var scratch: String { TestEnvironment.repoRoot + "/.build-openapi-check" }
    static let target = "Sources/OpenAPIClientCheck"

    /// Writes the package with `document` as its `openapi.json`; returns the copy's path.
    static func prepare(document: Data) throws -> String {
        let files = FileManager.default
        try files.createDirectory(atPath: Self.copy + "/" + Self.target, withIntermediateDirectories: true)
        for file in ["Package.swift", Self.target + "/main.swift", Self.target + "/openapi-generator-config.yaml"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: Self.source + "/" + file))
            let destination = URL(fileURLWithPath: Self.copy + "/" + file)
            // Rewritten only when changed: an unchanged file keeps its date, and the build stays incremental.
            if (try? Data(contentsOf: destination)) != data { try data.write(to: destination) }
        }
        let documentURL = URL(fileURLWithPath: Self.copy + "/" + Self.target + "/openapi.json")
        if (try? Data(contentsOf: documentURL)) != document { try document.write(to: documentURL) }
        return Self.copy
    }

    /// `swift build` of the copy; its exit status and output.
    static func build(deadline: Duration) async throws -> (status: Int32, output: String) {
        try await Self.run(
            "/usr/bin/env", ["swift", "build", "--package-path", Self.copy, "--scratch-path", Self.scratch],
            deadline: deadline)
    }

    /// The built program's path.
    static var program: String { Self.scratch + "/debug/OpenAPIClientCheck" }

    /// Runs a program to its end (killed at the deadline); its exit status and what it printed (stdout and stderr).
    static func run(_ path: String, _ arguments: [String], deadline: Duration) async throws -> (
        status: Int32, output: String
    ) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("lagw-openapi-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let end = ContinuousClock.now + deadline
        while process.isRunning && ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(50)) }
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
