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

    /// Writes the package with `document` as its `openapi.json`; answers whether a file changed.
    @discardableResult
    static func prepare(document: Data) throws -> Bool {
        var changed = false
        let files = FileManager.default
        try files.createDirectory(atPath: Self.copy + "/" + Self.target, withIntermediateDirectories: true)
        for file in ["Package.swift", Self.target + "/main.swift", Self.target + "/openapi-generator-config.yaml"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: Self.source + "/" + file))
            let destination = URL(fileURLWithPath: Self.copy + "/" + file)
            // Rewritten only when changed: an unchanged file keeps its date, and the build stays incremental.
            if (try? Data(contentsOf: destination)) != data {
                try data.write(to: destination)
                changed = true
            }
        }
        let documentURL = URL(fileURLWithPath: Self.copy + "/" + Self.target + "/openapi.json")
        if (try? Data(contentsOf: documentURL)) != document {
            try document.write(to: documentURL)
            changed = true
        }
        return changed
    }

    /// `make test` built the package (scripts/test.sh) before the suite, from the document the gateway serves.
    static var builtByMakeTest: Bool {
        ProcessInfo.processInfo.environment["LAGW_OPENAPI_CLIENT_BUILT"] == "1"
            && FileManager.default.isExecutableFile(atPath: Self.program)
    }

    /// `swift build` of the copy; its exit status and output.
    static func build(deadline: Duration) async throws -> (status: Int32, output: String) {
        try await ChildProcess.run(
            "/usr/bin/env", ["swift", "build", "--package-path", Self.copy, "--scratch-path", Self.scratch],
            deadline: deadline)
    }

    /// The built program's path.
    static var program: String { Self.scratch + "/debug/OpenAPIClientCheck" }
}
