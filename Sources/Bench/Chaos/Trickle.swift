import Foundation
import Synchronization

/// The other app's trickle during a chaos scenario: one update every 100 ms, each POST with a 5 s deadline. Its
/// timestamps go on rising from one scenario to the next: iOS (and the gateway) skip an older one.
final class Trickle: Sendable {
    struct Post: Sendable {
        var ts: Int
        var status: Int
        var pushID: String
        /// When it was answered (seconds since 1970).
        var at: Double
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
                let post = Post(ts: ts, status: status, pushID: id, at: Date().timeIntervalSince1970)
                self.posts.withLock { $0.append(post) }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        self.task.withLock { $0 = task }
    }

    /// What it has posted so far (still running); after `stop`, what it posted.
    func snapshot() -> [Post] { self.posts.withLock { $0 } }

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
