import Foundation
import PostgresNIO
import Testing

/// The Unity binding end to end: the C exports of `libLiveActivitiesUnity.so` (`swift build --product
/// LiveActivitiesUnity`) driven by a C program and by the C# binding under mono, against a live gateway.
@Suite struct UnityBindingTests {
    @Test func aCProgramDrivesTheGatewayThroughTheExports() async throws {
        let work = try UnityTools.workDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try UnityTools.library()
        let program = work.appendingPathComponent("client_check")
        let compiled = try await ChildProcess.run(
            try UnityTools.tool("cc"),
            [
                "-std=c11", "-D_DEFAULT_SOURCE", "-Wall", "-Werror", "-I", UnityTools.root + "/Client/Unity/include",
                UnityTools.fixture("client_check.c"), "-L", library.deletingLastPathComponent().path,
                "-lLiveActivitiesUnity", "-Wl,-rpath," + library.deletingLastPathComponent().path, "-lpthread",
                "-o", program.path,
            ])
        try #require(compiled.status == 0, "cc failed:\n\(compiled.output)")

        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let port = try #require(gw.client.port)
            let store = work.appendingPathComponent("store-c").path
            let result = try await ChildProcess.run(
                program.path, ["http://127.0.0.1:\(port)", app.key, app.appSecret, store], deadline: .seconds(120))
            #expect(result.status == 0, "client_check exited \(result.status):\n\(result.output)")
            for step in [
                "unconfigured", "configure-bad-url", "configure", "register", "contract-version", "push-to-start",
                "odd-hex", "non-hex",
                "null-token", "started", "schedule", "schedule-not-object", "cancel", "launch", "dismissed",
                "bad-reason",
            ] {
                #expect(UnityTools.passed(step, in: result.output), "no `ok \(step)` line:\n\(result.output)")
            }
            #expect(result.output.contains("ok cancel status=0 calls=1 {\"canceled\":1}"), "\(result.output)")
            #expect(result.output.contains("PASSED 0 failure(s)"), "\(result.output)")

            // What the gateway recorded: the channel with its push-to-start token, and the instance, dismissed.
            let channelID = try #require(
                UnityTools.channelID(in: result.output), "no channel id in:\n\(result.output)")
            let token = try await gw.database.scalar(
                """
                SELECT token || ' v' || contract_version FROM push_to_start_tokens
                WHERE channel_id = \(channelID) AND attributes_type = 'ChestTimerAttributes'
                """,
                as: String.self)
            #expect(token == "00112233445566778899aabbccddeeff v2")
            let instance = try await gw.database.scalar(
                """
                SELECT state || ' ' || push_token || ' ' || attributes_type || ' v' || contract_version FROM live_activities
                WHERE channel_id = \(channelID) AND name = 'chest_timer' AND system_activity_id = 'sys-activity-1'
                """, as: String.self)
            #expect(instance == "ended deadbeef000102030405060708090a0b ChestTimerAttributes v2")
            let launches = try await gw.database.scalar(
                """
                SELECT count(*) FROM launches WHERE channel_id = \(channelID) AND system_activity_id = 'sys-activity-1'
                """,
                as: Int64.self)
            #expect(launches == 1)
            let pending = try await gw.database.scalar(
                "SELECT count(*) FROM schedules WHERE state = 'pending'", as: Int64.self)
            #expect(pending == 0, "the canceled update is still pending")
        }
    }

    @Test func theCSharpBindingCompilesAndDrivesTheGatewayUnderMono() async throws {
        let work = try UnityTools.workDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try UnityTools.library()
        let binding = UnityTools.root + "/Client/Unity/Runtime/LiveActivities.cs"
        let mcs = try UnityTools.tool("mcs")
        let dll = try await ChildProcess.run(
            mcs, ["-target:library", "-out:" + work.appendingPathComponent("LiveActivities.dll").path, binding])
        try #require(dll.status == 0, "mcs failed:\n\(dll.output)")

        let exe = work.appendingPathComponent("BindingCheck.exe").path
        let compiled = try await ChildProcess.run(
            mcs, ["-out:" + exe, binding, UnityTools.fixture("BindingCheck.cs")])
        try #require(compiled.status == 0, "mcs failed:\n\(compiled.output)")

        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let port = try #require(gw.client.port)
            let store = work.appendingPathComponent("store-cs").path
            let result = try await ChildProcess.run(
                try UnityTools.tool("mono"), [exe, "http://127.0.0.1:\(port)", app.key, app.appSecret, store],
                environment: ["LD_LIBRARY_PATH": library.deletingLastPathComponent().path], deadline: .seconds(120))
            #expect(result.status == 0, "BindingCheck exited \(result.status):\n\(result.output)")
            for step in [
                "serialize", "configure", "register", "push-to-start", "odd-hex", "started", "schedule",
                "schedule-bad-system", "cancel", "launch", "ended", "disabled", "forget",
            ] {
                #expect(UnityTools.passed(step, in: result.output), "no `ok \(step)` line:\n\(result.output)")
            }
            #expect(result.output.contains("PASSED 0 failure(s)"), "\(result.output)")
            // The program forgot its install at the end: nothing of it is left.
            let channels = try await gw.database.scalar("SELECT count(*) FROM channels", as: Int64.self)
            #expect(channels == 0)
        }
    }
}

private enum UnityTools {
    static var root: String { TestEnvironment.repoRoot }

    static func fixture(_ name: String) -> String { root + "/Tests/IntegrationTests/Fixtures/unity/" + name }

    /// The binding's shared library, built by `swift build --product LiveActivitiesUnity` (scripts/test.sh does).
    static func library() throws -> URL {
        let url = URL(fileURLWithPath: root).appendingPathComponent(".build/debug/libLiveActivitiesUnity.so")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw TestSetupError("\(url.path) is missing: run `swift build --product LiveActivitiesUnity`")
        }
        return url
    }

    static func tool(_ name: String) throws -> String {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"]
        where FileManager.default.isExecutableFile(
            atPath: directory + "/" + name)
        {
            return directory + "/" + name
        }
        throw TestSetupError("\(name) is not installed: run scripts/deps.sh (mono-mcs)")
    }

    static func workDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lagw-unity-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Whether the program printed `ok <step>` (alone, or followed by what it got).
    static func passed(_ step: String, in output: String) -> Bool {
        output.split(separator: "\n").contains { $0 == "ok \(step)" || $0.hasPrefix("ok \(step) ") }
    }

    /// The channel id the program printed on its `ok register` line.
    static func channelID(in output: String) -> UUID? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("ok register") }),
            let range = line.range(of: #""channel_id":""#)
        else { return nil }
        return UUID(uuidString: String(line[range.upperBound...].prefix(36)))
    }
}
