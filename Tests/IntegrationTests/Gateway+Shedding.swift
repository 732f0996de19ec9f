import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import Gateway

/// Overload: the concurrency limit falls while even the fastest request of a window is slower than the target and
/// rises again when one meets it; beyond the limit requests get 503 with Retry-After in the error shape; the floor,
/// health and admin are never shed.
@Suite struct GatewaySheddingTests {
    @Test func theGatewayAnswers503WithRetryAfterWhileOverloaded() async throws {
        // Every request is slower than a target of zero: the limit falls to the floor of one, and of requests sent
        // together all but one are shed.
        try await GatewayHarness.run(shed: (target: .zero, floor: 1)) { gw in
            let app = try await gw.createApp()
            let port = try #require(gw.client.port)
            let deadline = ContinuousClock.now + .seconds(10)
            var shed: (HTTPClientResponse, ByteBuffer)?
            while shed == nil, ContinuousClock.now < deadline {
                shed = try await withThrowingTaskGroup(of: (HTTPClientResponse, ByteBuffer)?.self) { group in
                    for _ in 0..<16 {
                        group.addTask {
                            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/channels/\(UUID())")
                            request.headers.add(name: "Authorization", value: app.server)
                            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
                            let body = try await response.body.collect(upTo: 1 << 16)
                            return response.status == .serviceUnavailable ? (response, body) : nil
                        }
                    }
                    return try await group.reduce(nil) { $0 ?? $1 }
                }
            }
            let (response, body) = try #require(shed)
            #expect(response.headers["Retry-After"] == ["1"])
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
            #expect(json["ok"] as? Bool == false && json["error_code"] as? Int == 50301)
            #expect((json["request_id"] as? String)?.isEmpty == false)
            // The body built once and spliced (`ShedError`) is the error shape JSONEncoder writes.
            #expect(json["details"] as? [String: String] == [:])
            #expect((json["error"] as? String)?.hasPrefix("The gateway is overloaded") == true)
            #expect(response.headers["Content-Type"].first?.hasPrefix("application/json") == true)
            // One request at a time is within the floor.
            #expect(try await gw.request(.get, "/api/channels/\(UUID())", auth: app.server).status == .notFound)
            #expect(try await gw.request(.get, "/healthz").status == .ok)
            #expect(try await gw.request(.get, "/admin/apps", auth: gw.admin).status == .ok)
        }
    }
}
