import Foundation

/// The pure part of following one activity: which call each event makes. Tokens are forwarded every time they change
/// (they rotate, and the gateway needs every value); an end is reported once, a dismissal once and last.
struct ActivityEventHandler {
    let instance: ActivityInstance
    let watcher: ActivityWatcher
    private(set) var lastToken: Data?
    private(set) var ended = false
    private(set) var isOver = false

    init(instance: ActivityInstance, watcher: ActivityWatcher) {
        self.instance = instance
        self.watcher = watcher
    }

    mutating func handle(_ event: ActivityEvent) async {
        guard !self.isOver else { return }
        switch event {
        case .token(let token):
            guard !self.ended, token != self.lastToken else { return }
            self.lastToken = token
            await self.watcher.track(self.instance, token: token)
        case .noToken:
            // Tracked only where the install started it on a broadcast channel (remembered across launches).
            await self.watcher.track(self.instance, token: nil)
        case .ended:
            guard !self.ended else { return }
            self.ended = true
            await self.watcher.end(self.instance, reason: .ended)
        case .dismissed:
            self.ended = true
            self.isOver = true
            await self.watcher.end(self.instance, reason: .dismissed)
        }
    }
}
