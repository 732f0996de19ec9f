import Foundation
import PostgresStore
import TestSupport
import Testing

@testable import Gateway
@testable import Worker

/// `deploy/k8s/base`: every environment variable a manifest sets, and every ConfigMap key, is one its program
/// reads; probes ask routes that exist, on the port the program listens on.
@Suite struct DeploymentKubernetesTests {
    struct Container {
        var env: [String: String?] = [:]
        var ports: [String: Int] = [:]
        var probes: [(path: String, port: String)] = []
    }

    static func text(_ file: String) throws -> String {
        try String(contentsOfFile: TestEnvironment.repoRoot + "/deploy/k8s/base/" + file, encoding: .utf8)
    }

    /// A reader for the manifests' subset of YAML: `env:` lists of `- name:` / `value:`, `ports:` lists of
    /// `- name:` / `containerPort:`, and `httpGet:` blocks of `path:` / `port:`.
    static func container(_ file: String) throws -> Container {
        var container = Container()
        var block = ""
        var blockIndent = 0
        var lastName: String?
        var probePath: String?
        for raw in try Self.text(file).split(separator: "\n") {
            let line = raw.prefix { $0 != "#" }
            let content = line.trimmingCharacters(in: .whitespaces)
            guard !content.isEmpty else { continue }
            let indent = line.prefix { $0 == " " }.count
            if indent <= blockIndent, !content.hasPrefix("- ") || indent < blockIndent { block = "" }
            if ["env:", "ports:", "httpGet:"].contains(content) {
                (block, blockIndent) = (content, indent)
                continue
            }
            let item = content.hasPrefix("- ") ? String(content.dropFirst(2)) : content
            guard let colon = item.firstIndex(of: ":") else { continue }
            let key = String(item[..<colon])
            let value = item[item.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \""))
            switch (block, key) {
            case ("env:", "name") where indent == blockIndent + 2:
                lastName = value
                container.env[value] = .some(nil)
            case ("env:", "value"):
                if let name = lastName { container.env[name] = value }
            case ("ports:", "name"): lastName = value
            case ("ports:", "containerPort"): if let name = lastName { container.ports[name] = Int(value) }
            case ("httpGet:", "path"): probePath = value
            case ("httpGet:", "port"): if let path = probePath { container.probes.append((path, value)) }
            default: break
            }
        }
        return container
    }

    static func names(_ settings: [Setting]) -> Set<String> { Set(settings.map(\.environment)) }

    @Test func everyVariableIsReadAndEveryProbeAnswered() throws {
        let programs: [(file: String, reads: Set<String>, portVariable: String?, routes: Set<String>)] = [
            (
                "gateway-deployment.yaml", Self.names(GatewayConfiguration.settings), "GATEWAY_PORT",
                ["/healthz", "/readyz"]
            ),
            ("worker-deployment.yaml", Self.names(WorkerConfiguration.settings), "WORKER_PORT", ["/healthz"]),
            (
                "migrate-job.yaml", Self.names([CommonSettings.databaseURL, CommonSettings.migrationsDirectory]), nil,
                []
            ),
        ]
        for program in programs {
            let container = try Self.container(program.file)
            #expect(!container.env.isEmpty, "\(program.file) sets no environment")
            for name in container.env.keys {
                #expect(program.reads.contains(name), "\(program.file) sets \(name), which its program does not read")
            }
            guard let variable = program.portVariable else { continue }
            let port = try #require(container.env[variable] ?? nil).flatMap(Int.init)
            #expect(!container.probes.isEmpty, "\(program.file) has no probe")
            for probe in container.probes {
                #expect(program.routes.contains(probe.path), "\(program.file) probes \(probe.path)")
                #expect(
                    container.ports[probe.port] == port, "\(program.file) probes port \(probe.port), not \(variable)")
            }
        }
        #expect(try Self.text("worker-deployment.yaml").contains("terminationGracePeriodSeconds:"))
    }

    /// Each ConfigMap's keys are variables of its program (they are read one by one into the Deployments).
    @Test func everyConfigMapKeyIsAVariableItsProgramReads() throws {
        let reads = [
            "lagw-gateway": Self.names(GatewayConfiguration.settings),
            "lagw-worker": Self.names(WorkerConfiguration.settings),
        ]
        var map: String?
        var inData = false
        var checked = 0
        for raw in try Self.text("configmap.yaml").split(separator: "\n") where !raw.hasPrefix("#") {
            let content = raw.trimmingCharacters(in: .whitespaces)
            if content.hasPrefix("name: lagw-") { map = String(content.dropFirst("name: ".count)) }
            if raw.hasPrefix("data:") {
                inData = true
                continue
            }
            if !raw.hasPrefix(" ") { inData = false }
            guard inData, !content.hasPrefix("#"), let colon = content.firstIndex(of: ":"), let map else { continue }
            let key = String(content[..<colon])
            #expect(reads[map]?.contains(key) == true, "\(map) holds \(key), which its program does not read")
            checked += 1
        }
        #expect(checked >= 4)
    }
}
