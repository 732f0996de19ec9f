import Foundation
import LiveActivitiesContracts
import Testing

/// `ContractUpload` and the tool's `run()` against a real local HTTP server: what goes on the wire, and the gateway's
/// refusal as the error the tool prints.
@Suite struct ContractToolUploadTests {
    static let refusal = #"""
        {"ok":false,"error":"The contract is not valid.","error_code":40001,"details":{"path":"content_state.properties.score","rule":"unknown keyword: pattern"},"request_id":"r-7"}
        """#

    @Test func putsTheDocumentWithBasicAuth() async throws {
        let server = try ContractToolServer()
        defer { server.stop() }
        let contract = try ActivityContract.make(
            contentState: ContractMakerMatch.ContentState.self, attributes: ContractMakerMatch.self)
        let upload = ContractUpload(
            gateway: server.url.appendingPathComponent("/"), appKey: "app-1", masterSecret: "secret-1")
        try await upload.put(contract, attributesType: "Match Attributes/v2", version: 7)
        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(request.method == "PUT")
        #expect(request.path == "/api/attributes-types/Match%20Attributes%2Fv2/contracts/7")
        #expect(request.headers["authorization"] == "Basic " + Data("app-1:secret-1".utf8).base64EncodedString())
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.body == contract.jsonData())
    }

    @Test func refusalCarriesTheGatewaysError() async throws {
        let server = try ContractToolServer { _ in (400, Self.refusal) }
        defer { server.stop() }
        let upload = ContractUpload(gateway: server.url, appKey: "app-1", masterSecret: "secret-1")
        let error = try await #require(throws: ContractUploadError.self) {
            try await upload.put(document: Data("{}".utf8), attributesType: "MatchAttributes", version: 1)
        }
        #expect(error.status == 400)
        #expect(error.error == "The contract is not valid.")
        #expect(error.errorCode == 40001)
        #expect(error.details == #"{"path":"content_state.properties.score","rule":"unknown keyword: pattern"}"#)
        #expect(error.requestID == "r-7")
    }

    @Test func versionOutOfRangeIsNotSent() async throws {
        let server = try ContractToolServer()
        defer { server.stop() }
        let upload = ContractUpload(gateway: server.url, appKey: "app-1", masterSecret: "secret-1")
        for version in [0, 1_000_001] {
            let error = try await #require(throws: ContractUploadError.self) {
                try await upload.put(document: Data("{}".utf8), attributesType: "MatchAttributes", version: version)
            }
            #expect(error.status == nil)
        }
        #expect(server.requests.isEmpty)
    }

    /// The tool's whole path: the file an app's test wrote, the command line, the environment.
    @Test func toolUploadsTheFileItIsGiven() async throws {
        let server = try ContractToolServer()
        defer { server.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let contract = try ActivityContract.make(
            contentState: ContractMakerMatch.ContentState.self, attributes: ContractMakerMatch.self)
        try contract.jsonData().write(to: file)
        let command = try ContractUploadCommand(
            arguments: [
                "upload", file.path, "--type", "MatchAttributes", "--version", "3", "--gateway",
                server.url.absoluteString,
            ],
            environment: ["LAGW_APP_KEY": "app-1", "LAGW_MASTER_SECRET": "secret-1"])
        try await command.run()
        #expect(server.requests.map(\.path) == ["/api/attributes-types/MatchAttributes/contracts/3"])
        #expect(server.requests.first?.body == contract.jsonData())
    }
}
