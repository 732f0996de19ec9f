import Foundation
import LiveActivitiesClient
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// Requests cancelled while their answers (here: refused connections) arrive all end: swift-corelibs-foundation's
    /// `URLSession.data(for:)` could deadlock there (swiftlang/swift-corelibs-foundation#5412), which hung an
    /// end-to-end test, and its `URLSessionTask.cancel()` racing a completion crashed the process once (its task
    /// registry; `CancellableDataTask` no longer cancels the data task). A deadlock there blocks the cooperative threads themselves, so no task can time it out: a
    /// watchdog on a Dispatch queue ends the process with a message instead of letting the suite hang (it did, 4
    /// runs of 4, with `data(for:)`).
    @Suite struct URLSessionTransportCancellationTests {
        @Test func requestsCancelledWhileAnsweredAllEnd() async throws {
            let transport = URLSessionTransport(session: URLSession(configuration: .ephemeral))
            // A port nobody listens on: every request fails fast, as the deadlock needs.
            let request = URLRequest(url: URL(string: "http://127.0.0.1:9/")!)
            let watchdog = DispatchWorkItem {
                fatalError("URLSessionTransportCancellationTests: cancelled requests did not end in 60 s (a deadlock)")
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
            defer { watchdog.cancel() }
            for _ in 0..<20 {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<50 { group.addTask { _ = try? await transport.send(request) } }
                    try? await Task.sleep(for: .microseconds(100))
                    group.cancelAll()
                }
            }
        }
    }
#endif
