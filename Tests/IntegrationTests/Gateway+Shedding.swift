import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import Gateway

/// Overload: a window whose fastest request is slower than the target sheds the next, with 503 and Retry-After in
/// the error shape; a fast window ends it; the first requests in flight, health and admin are never shed.
@Suite struct GatewaySheddingTests {
    @Test func aWindowWhoseFastestRequestIsSlowShedsAndAFastOneEndsIt() {
        let start = ContinuousClock.now
        var window = SheddingWindow(target: .milliseconds(20), interval: .milliseconds(100), now: start)
        window.served(in: .milliseconds(30), now: start + .milliseconds(10))
        window.served(in: .milliseconds(50), now: start + .milliseconds(60))
        #expect(!window.overloaded, "a window decides at its end")
        window.served(in: .milliseconds(25), now: start + .milliseconds(100))
        #expect(window.overloaded, "even the fastest of the window waited 25 ms")
        window.served(in: .milliseconds(500), now: start + .milliseconds(150))
        window.served(in: .milliseconds(5), now: start + .milliseconds(160))
        window.served(in: .milliseconds(300), now: start + .milliseconds(200))
        #expect(!window.overloaded, "one request of the window took 5 ms: a burst, not a queue")
        window.served(in: .milliseconds(20), now: start + .milliseconds(300))
        #expect(!window.overloaded, "at the target is not over it")
    }

    @Test func theGatewayAnswers503WithRetryAfterWhileOverloaded() async throws {
        // Any request is slower than a target of zero: after the first window every /api request beyond the floor
        // (none) is shed.
        try await GatewayHarness.run(shed: (target: .zero, floor: 0)) { gw in
            let app = try await gw.createApp()
            let deadline = ContinuousClock.now + .seconds(10)
            var shed: TestResponse?
            while shed == nil, ContinuousClock.now < deadline {
                let response = try await gw.request(.get, "/api/channels/\(UUID())", auth: app.server)
                if response.status == .serviceUnavailable { shed = response }
                try await Task.sleep(for: .milliseconds(20))
            }
            let response = try #require(shed)
            #expect(response.headers[.retryAfter] == "1")
            #expect(response.json["ok"] as? Bool == false && response.json["error_code"] as? Int == 50301)
            #expect((response.json["request_id"] as? String)?.isEmpty == false)
            // The body built once and spliced (`ShedError`) is the error shape JSONEncoder writes.
            #expect(response.json["details"] as? [String: String] == [:])
            #expect((response.json["error"] as? String)?.hasPrefix("The gateway is overloaded") == true)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(try await gw.request(.get, "/healthz").status == .ok)
            #expect(try await gw.request(.get, "/admin/apps", auth: gw.admin).status == .ok)
        }
    }
}
