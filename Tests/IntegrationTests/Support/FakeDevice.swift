import ActivityKitStandIn
import Foundation
import LiveActivitiesClient

/// The device in the end-to-end tests: ActivityKit's stand-in, driven by what the APNs simulator accepted for this
/// device's tokens. A push-to-start the simulator accepted starts an activity (as iOS does on receiving it); the
/// payloads delivered to an activity's token are applied as the simulator's device model judges them by Apple's rules
/// (`GET /activities`: older timestamps ignored, nothing after an end).
struct FakeDevice: Sendable {
    let simulator: SimulatorHarness

    /// Waits until the simulator has accepted `count` start payloads for the push-to-start token, and starts the
    /// activities of those not yet started; returns their ids.
    func deliverStarts(to pushToStartToken: Data, count: Int, timeout: Duration = .seconds(30)) async throws -> [String]
    {
        let hex = PushTokenHex.encode(pushToStartToken)
        let bodies = try await until("\(count) start(s) at \(hex)", timeout: timeout) { () -> [Data]? in
            let notes = try await self.simulator.notifications(token: hex)
            guard notes.count >= count else { return nil }
            return try notes.prefix(count).map { try JSONSerialization.data(withJSONObject: $0["body"] ?? [:]) }
        }
        return try bodies.map { try StandInDevice.startFromPush($0) }
    }

    /// Applies to the activity what the simulator's device model shows for its token.
    func deliverUpdates(to activityID: String, token: Data) async throws {
        let hex = PushTokenHex.encode(token)
        guard let shown = try await self.simulator.activities(token: hex)[hex] else { return }
        let state = shown["content_state"].flatMap { $0 is NSNull ? nil : $0 }
        try StandInDevice.apply(
            activityID: activityID, contentState: try state.map { try JSONSerialization.data(withJSONObject: $0) },
            ended: shown["ended"] as? Bool ?? false)
    }
}
