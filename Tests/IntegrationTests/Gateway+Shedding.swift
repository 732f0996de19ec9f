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
    @Test func theLimitFallsToWhatMeetsTheTargetAndRisesWhenRequestsAreFast() {
        let start = ContinuousClock.now
        var limit = ConcurrencyLimit(
            target: .milliseconds(20), floor: 8, ceiling: 1024, interval: .milliseconds(100), now: start)
        #expect(limit.limit == 1024 && limit.admits(inFlight: 1024) && !limit.admits(inFlight: 1025))
        limit.served(in: .milliseconds(60), inFlight: 150, now: start + .milliseconds(10))
        limit.served(in: .milliseconds(25), inFlight: 200, now: start + .milliseconds(60))
        #expect(limit.limit == 1024, "a window decides at its end")
        limit.served(in: .milliseconds(70), inFlight: 120, now: start + .milliseconds(100))
        #expect(limit.limit == 160, "what was in flight (200), scaled by 20 ms over the fastest 25 ms")
        limit.served(in: .milliseconds(30), inFlight: 150, now: start + .milliseconds(200))
        #expect(limit.limit == 100, "150 in flight x 20/30")
        limit.served(in: .milliseconds(500), inFlight: 100, now: start + .milliseconds(300))
        #expect(limit.limit == 50, "what was in flight, at most halved")
        limit.served(in: .milliseconds(20), inFlight: 50, now: start + .milliseconds(400))
        #expect(limit.limit == 56, "at the target: up by an eighth")
        limit.served(in: .milliseconds(5), inFlight: 3, now: start + .milliseconds(500))
        #expect(limit.limit == 63, "fast with little in flight: up too, back towards the ceiling")
        limit.served(in: .milliseconds(300), inFlight: 8, now: start + .milliseconds(600))
        #expect(limit.limit == 63, "slow with no more than the floor in flight: a slow database, not a queue")
        for window in 7...30 {
            limit.served(in: .seconds(1), inFlight: 63, now: start + .milliseconds(100 * window))
        }
        #expect(limit.limit == 8 && limit.admits(inFlight: 8), "never below the floor")
        for window in 31...90 {
            limit.served(in: .milliseconds(1), inFlight: 1, now: start + .milliseconds(100 * window))
        }
        #expect(limit.limit == 1024, "back to the ceiling, never above it")
    }

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
