import Foundation
import LiveActivitiesContracts
import Testing

/// `live-activities-contract upload`: its command line, the document checks made before sending, and the gateway's
/// error as the tool prints it. The upload itself against the gateway is tested end to end by the gateway's tests.
@Suite struct ContractToolCommandTests {
    static let environment = ["LAGW_APP_KEY": "app-1", "LAGW_MASTER_SECRET": "secret-1"]
    static let valid = [
        "upload", "contract.json", "--type", "MatchAttributes", "--version", "3", "--gateway",
        "https://gateway.example.com",
    ]

    private func usageError(_ arguments: [String], _ environment: [String: String] = Self.environment) throws -> String
    {
        try #require(throws: ContractUsageError.self) {
            try ContractUploadCommand(arguments: arguments, environment: environment)
        }.message
    }

    @Test func parses() throws {
        let command = try ContractUploadCommand(
            arguments: [
                "upload", "--version", "3", "--type", "MatchAttributes", "--gateway", "http://127.0.0.1:8080",
                "out/contract.json",
            ],
            environment: Self.environment)
        #expect(command.file.path.hasSuffix("/out/contract.json"))
        #expect(command.attributesType == "MatchAttributes")
        #expect(command.version == 3)
        #expect(command.gateway.absoluteString == "http://127.0.0.1:8080")
        #expect(command.appKey == "app-1")
        #expect(command.masterSecret == "secret-1")
    }

    @Test func refusesBadCommandLines() throws {
        func without(_ option: String) -> [String] {
            var arguments = Self.valid
            let index = try! #require(arguments.firstIndex(of: option))
            arguments.removeSubrange(index...index + 1)
            return arguments
        }
        #expect(try self.usageError(["download"] + Self.valid.dropFirst()) == "unknown command \"download\"")
        #expect(try self.usageError(without("--type")) == "--type is required")
        #expect(try self.usageError(without("--version")) == "--version is required")
        #expect(try self.usageError(without("--gateway")) == "--gateway is required")
        #expect(try self.usageError(Self.valid.filter { $0 != "contract.json" }) == "no contract file given")
        #expect(try self.usageError(Self.valid + ["--force", "1"]) == "unknown option --force")
        #expect(try self.usageError(Self.valid + ["--type"]) == "--type needs a value")
        #expect(try self.usageError(Self.valid + ["--type", "B"]) == "--type given twice")
        #expect(try self.usageError(Self.valid + ["other.json"]) == "more than one file given: other.json")
        for version in ["0", "1000001", "3.5", "three"] {
            var arguments = Self.valid
            arguments[5] = version
            #expect(try self.usageError(arguments) == "--version must be an integer in 1...1000000, not \(version)")
        }
        var arguments = Self.valid
        arguments[7] = "gateway.example.com"
        #expect(try self.usageError(arguments) == "--gateway must be an http or https URL, not gateway.example.com")
    }

    @Test func takesTheSecretsFromTheEnvironment() throws {
        #expect(try self.usageError(Self.valid, ["LAGW_MASTER_SECRET": "s"]) == "LAGW_APP_KEY is not set")
        #expect(try self.usageError(Self.valid, ["LAGW_APP_KEY": "a"]) == "LAGW_MASTER_SECRET is not set")
        #expect(
            try self.usageError(Self.valid, ["LAGW_APP_KEY": "a", "LAGW_MASTER_SECRET": ""])
                == "LAGW_MASTER_SECRET is not set")
    }

    /// Checked before anything is sent: the gateway named here has nothing listening.
    @Test func refusesDocumentsThatAreNotContracts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("contract-tool-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [(String, String?, String)] = [
            ("missing.json", nil, "cannot read"),
            ("list.json", "[1]", "is not a JSON object"),
            ("half.json", #"{"content_state":{"type":"object"}}"#, #"has no "attributes" schema (an object)"#),
            ("string.json", #"{"content_state":"x","attributes":{}}"#, #"has no "content_state" schema"#),
        ]
        for (name, text, message) in cases {
            let file = directory.appendingPathComponent(name)
            if let text { try Data(text.utf8).write(to: file) }
            var arguments = Self.valid
            arguments[1] = file.path
            arguments[7] = "http://127.0.0.1:9"
            let command = try ContractUploadCommand(arguments: arguments, environment: Self.environment)
            let error = try await #require(throws: ContractUsageError.self) { try await command.run() }
            #expect(error.message.contains(message), "\(name): \(error.message)")
        }
    }

    @Test func gatewayErrorCarriesItsFields() {
        let body = Data(
            #"{"ok":false,"error":"The contract is not valid.","error_code":40001,"details":{"rule":"unknown keyword","path":"content_state.properties.score"},"request_id":"r-9"}"#
                .utf8)
        let error = ContractUploadError(status: 400, body: body)
        #expect(
            error
                == ContractUploadError(
                    status: 400, error: "The contract is not valid.", errorCode: 40001,
                    details: #"{"path":"content_state.properties.score","rule":"unknown keyword"}"#, requestID: "r-9"))
        #expect(
            error.description
                == #"HTTP 400 (40001): The contract is not valid. details: {"path":"content_state.properties.score","rule":"unknown keyword"} request_id: r-9"#
        )
        let proxy = ContractUploadError(status: 502, body: Data("<html>Bad Gateway</html>".utf8))
        #expect(proxy.description == "HTTP 502: <html>Bad Gateway</html>")
    }
}
