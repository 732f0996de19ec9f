import Foundation
import Synchronization

/// The other app's trickle during a chaos scenario: one update every 100 ms, each POST with a 5 s deadline. Its
/// timestamps go on rising from one scenario to the next: iOS (and the gateway) skip an older one.
final class Trickle: Sendable {
    struct Post: Sendable {
        var ts: Int
        var status: Int
        var pushID: String
    }

    private let lastTS: Mutex<Int>
    private let posts = Mutex<[Post]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init() { self.lastTS = Mutex(Int(Date().timeIntervalSince1970) - 100_000) }

    func start(_ gateway: GatewayAPI, auth: String) {
        self.posts.withLock { $0 = [] }
        let task = Task {
            while !Task.isCancelled {
                let ts = self.lastTS.withLock { t in
                    t += 1
                    return t
                }
                let (status, id) = await gateway.tryPush(.update("solo", timestamp: ts), auth: auth)
                // A POST cut short by stop() is not counted (the script's killed curl wrote no line either).
                if Task.isCancelled { break }
                self.posts.withLock { $0.append(Post(ts: ts, status: status, pushID: id)) }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        self.task.withLock { $0 = task }
    }

    /// Stops it and returns what it posted.
    func stop() async -> [Post] {
        let task = self.task.withLock { t in
            defer { t = nil }
            return t
        }
        task?.cancel()
        await task?.value
        return self.posts.withLock { $0 }
    }
}
