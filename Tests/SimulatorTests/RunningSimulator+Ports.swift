import Logging
import Testing

@testable import Simulator

/// A simulator whose admin or broadcast port is taken fails to start, with the bind error, instead of waiting for
/// a server that will never listen (it used to hang there, and then ignore SIGTERM).
@Suite struct RunningSimulatorPortTests {
    enum Taken: CaseIterable { case admin, broadcast }

    @Test(arguments: Taken.allCases) func aTakenPortIsAnErrorNotAHang(_ taken: Taken) async throws {
        let quiet = Logger(label: "apns-sim-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let first = try await RunningSimulator.start(logger: quiet)
        let outcome = await withTaskGroup(of: String.self) { group in
            group.addTask {
                do {
                    let second = try await RunningSimulator.start(
                        adminPort: taken == .admin ? first.adminPort : 0,
                        broadcastPort: taken == .broadcast ? first.broadcastPort : 0, logger: quiet)
                    await second.stop()
                    return "started"
                } catch {
                    return "failed: \(error)"
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return "still starting after 20 s"
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        await first.stop()
        #expect(outcome.hasPrefix("failed") && outcome.contains("in use"), "\(outcome)")
    }
}
