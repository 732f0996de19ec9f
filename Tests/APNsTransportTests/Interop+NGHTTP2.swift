import APNsCommon
import APNsTransport
import Foundation
import NIOCore
import NIOSSL
import TestSupport
import Testing

/// Our client and our simulator each frame HTTP/2 themselves, so each is also checked against nghttp2's C
/// implementation (`h2load`, `nghttpd`, installed by `scripts/deps.sh`): an error the two shared would otherwise
/// pass unnoticed between them.
@Suite struct InteropNGHTTP2Tests {
    @Test func h2loadGetsAnAnswerToEveryRequestFromTheSimulator() async throws {
        try await SimulatorHarness.run { sim in
            try await sim.configure(["record": false, "max_concurrent_streams": 50])
            let directory = try Scratch()
            let body = directory.file("body.json", String(buffer: Payloads.update))
            let token = try ProviderTokenMinter.mint(
                teamID: sim.credentials.teamID, keyID: sim.credentials.keyID,
                key: sim.credentials.signingKey.privateKey, issuedAt: Date())
            let output = try runTool(
                "h2load",
                [
                    "-n", "3000", "-c", "2", "-m", "50", "-d", body, "-H", "apns-push-type: liveactivity",
                    "-H", "apns-topic: \(sim.topic)", "-H", "authorization: bearer \(token)",
                    "https://127.0.0.1:\(sim.simulator.apnsPort)/3/device/\(deviceToken(1))",
                ])
            #expect(output.contains("status codes: 3000 2xx, 0 3xx, 0 4xx, 0 5xx"), "\(output)")
            let stats = try await sim.stats()
            #expect(stats["accepted"] as? Int == 3000)
            #expect((stats["max_streams_in_flight"] as? Int ?? 0) <= 50)
        }
    }

    @Test func ourClientGetsEveryAnswerFromNghttpd() async throws {
        let directory = try Scratch()
        let key = directory.path("key.pem")
        let certificate = directory.path("cert.pem")
        _ = try runTool(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out",
                certificate,
            ])
        let port = try Int(
            runTool("python3", ["-c", Scratch.freePortScript]).trimmingCharacters(in: .whitespacesAndNewlines))!
        let server = Process()
        server.executableURL = try toolURL("nghttpd")
        server.arguments = ["-d", directory.path(""), "--max-concurrent-streams=50", "\(port)", key, certificate]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            kill(server.processIdentifier, SIGKILL)  // nghttpd does not stop on SIGTERM
            server.waitUntilExit()
        }
        var configuration = APNsClientConfiguration()
        configuration.endpointOverride = APNsEndpoint(host: "127.0.0.1", port: port)
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate))
        configuration.connectionsPerPool = 2
        configuration.requestTimeout = .seconds(30)
        let client = try APNsClient(configuration: configuration, logger: TestEnvironment.quietLogger)
        let credentials = APNsCredentials(
            teamID: "TEAM123456", keyID: "KEY1234567", environment: .development,
            signingKey: APNsSigningKey(privateKey: .init()))
        // nghttpd answers every path with 404 and a small HTML body: 2,000 of them are more than HTTP/2's initial
        // 64 KiB receive window, so our WINDOW_UPDATEs are checked too. (The first tries may find nghttpd not yet
        // listening: the client reconnects with backoff within the deadline.)
        let results = await client.send(
            (0..<2000).map {
                APNsRequest(
                    deviceToken: deviceToken($0), topic: "com.example.game.push-type.liveactivity",
                    body: Payloads.update)
            }, credentials: credentials)
        await client.shutdown()
        let notFound = APNsOutcome.rejected(status: 404, reason: .unknown("HTTP 404"), timestamp: nil)
        let others = results.filter { $0 != .success(notFound) }
        #expect(others.isEmpty, "\(others.count) other results, e.g. \(others.prefix(2))")
    }
}

/// A temporary directory, removed when the value goes.
private final class Scratch: Sendable {
    static let freePortScript =
        "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"
    let url: URL

    init() throws {
        self.url = FileManager.default.temporaryDirectory.appendingPathComponent("lagw-interop-\(UUID())")
        try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: self.url) }

    func path(_ name: String) -> String { self.url.appendingPathComponent(name).path }

    func file(_ name: String, _ contents: String) -> String {
        _ = FileManager.default.createFile(atPath: self.path(name), contents: Data(contents.utf8))
        return self.path(name)
    }
}

private func toolURL(_ name: String) throws -> URL {
    for directory in ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/bin"] {
        let url = URL(fileURLWithPath: directory).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    throw ToolMissing(name: name)
}

private struct ToolMissing: Error, CustomStringConvertible {
    var name: String
    var description: String { "\(self.name) is not installed: run scripts/deps.sh (nghttp2-client, nghttp2-server)" }
}

/// Runs a tool to its end and returns what it printed; a non-zero exit throws.
@discardableResult
private func runTool(_ name: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = try toolURL(name)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw ToolFailed(name: name, output: output) }
    return output
}

private struct ToolFailed: Error, CustomStringConvertible {
    var name: String
    var output: String
    var description: String { "\(self.name) failed: \(self.output)" }
}
