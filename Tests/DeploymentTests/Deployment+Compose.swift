import Foundation
import PostgresStore
import TestSupport
import Testing

@testable import Gateway
@testable import Worker

/// No Docker engine runs here, so the compose file is checked against what the binaries really read.
@Suite struct DeploymentComposeTests {
    struct Service {
        var name: String
        var command: [String] = []
        var environment: [String: String] = [:]
    }

    /// A small reader for the subset of YAML the compose file uses (two-space indentation, flow lists).
    static func services() throws -> [Service] {
        let text = try String(contentsOfFile: TestEnvironment.repoRoot + "/docker-compose.yml", encoding: .utf8)
        var services: [Service] = []
        var inServices = false
        var inEnvironment = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("#") { continue }
            let indent = line.prefix { $0 == " " }.count
            let content = line.trimmingCharacters(in: .whitespaces)
            if indent == 0 {
                inServices = content == "services:"
                continue
            }
            guard inServices else { continue }
            if indent == 2 {
                services.append(Service(name: String(content.dropLast())))
                inEnvironment = false
            } else if indent == 4 {
                inEnvironment = content == "environment:"
                if content.hasPrefix("command:") {
                    let list = content.dropFirst("command:".count).trimmingCharacters(in: .whitespaces)
                    let data = Data(list.utf8)
                    services[services.count - 1].command = try JSONDecoder().decode([String].self, from: data)
                }
            } else if indent == 6, inEnvironment, let colon = content.firstIndex(of: ":") {
                let key = String(content[..<colon])
                let value = content[content.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                services[services.count - 1].environment[key] = Self.interpolate(
                    value.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
            }
        }
        return services
    }

    /// The secrets `scripts/compose-env.sh` writes to `.env`, as compose would substitute them.
    static let dotEnv = [
        "POSTGRES_PASSWORD": String(repeating: "ab", count: 24), "ADMIN_TOKEN": String(repeating: "cd", count: 24),
        "MASTER_KEY": MasterKeyFixture.base64,
    ]

    /// `${NAME:?message}` and `${NAME}` replaced from `dotEnv`, as compose does (an unknown name stays as written).
    static func interpolate(_ value: String) -> String {
        var out = value
        while let start = out.range(of: "${"), let end = out.range(of: "}", range: start.upperBound..<out.endIndex) {
            let name = out[start.upperBound..<end.lowerBound].prefix { $0 != ":" }
            guard let replacement = Self.dotEnv[String(name)] else { break }
            out.replaceSubrange(start.lowerBound..<end.upperBound, with: replacement)
        }
        return out
    }

    /// No secret is written in the compose file: each is required (`${NAME:?...}`) and the env script makes each.
    @Test func theComposeFileHoldsNoSecret() throws {
        let text = try String(contentsOfFile: TestEnvironment.repoRoot + "/docker-compose.yml", encoding: .utf8)
        let script = try String(contentsOfFile: TestEnvironment.repoRoot + "/scripts/compose-env.sh", encoding: .utf8)
        for name in Self.dotEnv.keys {
            for line in text.split(separator: "\n")
            where line.trimmingCharacters(in: .whitespaces).hasPrefix(name + ":") {
                #expect(line.contains("${\(name):?"), "\(line)")
            }
            #expect(text.contains("${\(name):?"), "\(name) is not required")
            #expect(script.contains("echo \"\(name)="), "compose-env.sh does not make \(name)")
        }
        #expect(!text.contains("5aSB0MSvkOfj"))
    }

    @Test func everyServiceRunsARealCommandWithSettingsItReads() throws {
        let services = try Self.services()
        let ours = services.filter { !$0.command.isEmpty }
        #expect(Set(ours.map(\.name)).isSuperset(of: ["gateway", "worker", "migrate"]))
        let gatewaySubcommands = GatewayCommand.configuration.subcommands.map { $0._commandName }
        for service in ours {
            let known: [Setting]
            switch (service.command.first, service.command.dropFirst().first) {
            case ("gateway", "serve"?), ("gateway", nil):
                known = GatewayConfiguration.settings
            case ("gateway", "migrate"?):
                known = [CommonSettings.databaseURL, CommonSettings.migrationsDirectory]
            case ("worker", _):
                known = WorkerConfiguration.settings
            default:
                Issue.record("service \(service.name) runs an unknown command \(service.command)")
                continue
            }
            if service.command.first == "gateway", let sub = service.command.dropFirst().first {
                #expect(gatewaySubcommands.contains(sub), "unknown gateway subcommand \(sub)")
            }
            let names = Set(known.map(\.environment))
            for key in service.environment.keys {
                #expect(names.contains(key), "\(service.name) sets \(key), which its binary does not read")
            }
            if let url = service.environment["DATABASE_URL"] { #expect(throws: Never.self) { try DatabaseURL(url) } }
            if let key = service.environment["MASTER_KEY"] {
                #expect(throws: Never.self) { try MasterKey(base64: key) }
            }
        }
    }

    @Test func theGatewayServiceHasEverythingItRequires() throws {
        let gateway = try #require(try Self.services().first { $0.name == "gateway" })
        let options = try GatewayOptions.parse([])
        #expect(throws: Never.self) { try GatewayConfiguration(options: options, environment: gateway.environment) }
        let worker = try #require(try Self.services().first { $0.name == "worker" })
        let workerOptions = try WorkerCommand.parse([])
        #expect(throws: Never.self) { try WorkerConfiguration(options: workerOptions, environment: worker.environment) }
    }

    @Test func aMissingOrMalformedSettingIsNamed() throws {
        let options = try GatewayOptions.parse([])
        let base = [
            "DATABASE_URL": "postgres://u@localhost/db", "ADMIN_TOKEN": "0123456789abcdef0123",
            "MASTER_KEY": MasterKeyFixture.base64,
        ]
        #expect(throws: Never.self) { try GatewayConfiguration(options: options, environment: base) }
        for (key, value, mention) in [
            ("DATABASE_URL", nil as String?, "DATABASE_URL (--database-url): is required"),
            ("MASTER_KEY", "short", "MASTER_KEY (--master-key): must be 32 bytes"),
            ("ADMIN_TOKEN", "short", "ADMIN_TOKEN (--admin-token): must be at least 16"),
            ("GATEWAY_PORT", "http", "GATEWAY_PORT (--port): must be a whole number"),
            ("LOG_LEVEL", "loud", "LOG_LEVEL (--log-level): must be one of"),
        ] {
            var environment = base
            environment[key] = value
            #expect {
                try GatewayConfiguration(options: options, environment: environment)
            } throws: { error in
                "\(error)".contains(mention)
            }
        }
    }
}
