import Foundation
import Testing

/// Clients generated from the served OpenAPI document work: Apple's swift-openapi-generator makes a client (types and
/// client) that compiles, and a push sent through it is accepted. (That the document keeps to what generators support:
/// `OpenAPIDocumentTests`.)
@Suite struct OpenAPIGeneratedClientTests {
    @Test func theSwiftClientGeneratedFromTheServedDocumentCompilesAndSendsAPush() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let served = try await gw.request(.get, "/openapi.json")
            try #require(served.status == .ok)
            // Built by `make test` before the suite from the same document, or here (minutes the first time).
            let changed = try OpenAPIClientPackage.prepare(document: Data(buffer: served.body))
            if changed || !OpenAPIClientPackage.builtByMakeTest {
                let started = ContinuousClock.now
                let build = try await OpenAPIClientPackage.build(deadline: .seconds(600))
                try #require(
                    build.status == 0, "swift build of the generated client exited \(build.status):\n\(build.output)")
                print("openapi client: built in \(ContinuousClock.now - started)")
            }

            let port = try #require(gw.client.port)
            let result = try await ChildProcess.run(
                OpenAPIClientPackage.program, ["http://127.0.0.1:\(port)", app.key, app.masterSecret],
                deadline: .seconds(60))
            try #require(
                result.status == 0, "the generated client's program exited \(result.status):\n\(result.output)")
            let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("push_id ") })
            let pushID = line.dropFirst("push_id ".count)
            let report = try await gw.request(.get, "/api/pushes/\(pushID)", auth: app.server)
            #expect(report.status == .ok, "\(report.text)")
            let push = report.json["push"] as? [String: Any] ?? [:]
            #expect(push["push_id"] as? String == String(pushID))
            #expect(push["name"] as? String == "match")
            #expect(push["event"] as? String == "update")
        }
    }
}
