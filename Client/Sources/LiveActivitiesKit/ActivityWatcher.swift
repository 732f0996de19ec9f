import Foundation
import LiveActivitiesClient

/// The state of one `watch`: which activities are followed, what the gateway was last told, and the restore barrier
/// (the channel is reconciled once, after every watched type listed its current activities).
actor ActivityWatcher {
    let client: GatewayClient
    let onError: @Sendable (any Error) -> Void
    private var pendingTypes: Set<String>
    private var current: [String] = []
    private var isRestored = false
    private var restoreWaiters: [CheckedContinuation<Void, Never>] = []
    private var followed: Set<String> = []
    private var tasks: [String: Task<Void, Never>] = [:]
    /// What the gateway was last told, sent again if the install registers on a new channel.
    private var tracked: [String: (instance: ActivityInstance, token: Data?)] = [:]
    private var pushToStart: [String: Data] = [:]
    private var enabled: Bool?

    init(client: GatewayClient, types: [String], onError: @escaping @Sendable (any Error) -> Void) {
        self.client = client
        self.pendingTypes = Set(types)
        self.onError = onError
    }

    // MARK: the barrier

    func restored(attributesType: String, current: [String]) async {
        self.current += current
        self.pendingTypes.remove(attributesType)
        guard self.pendingTypes.isEmpty, !self.isRestored else { return }
        // Instances the gateway tracks that ActivityKit no longer lists ended while the app was not running.
        await self.perform { _ = try await $0.reconcile(keeping: self.current) }
        self.isRestored = true
        for waiter in self.restoreWaiters { waiter.resume() }
        self.restoreWaiters = []
    }

    func waitRestored() async {
        if self.isRestored { return }
        await withCheckedContinuation { self.restoreWaiters.append($0) }
    }

    // MARK: activities

    /// True the first time an activity id is seen.
    func begin(_ id: String) -> Bool { self.followed.insert(id).inserted }

    func spawn(_ id: String, _ body: @escaping @Sendable () async -> Void) {
        self.tasks[id] = Task { await body() }
    }

    func track(_ instance: ActivityInstance, token: Data) async {
        self.tracked[instance.id] = (instance, token)
        await self.perform {
            try await $0.track(
                name: instance.name, attributesType: instance.attributesType, systemActivityID: instance.id,
                token: token)
        }
    }

    func trackOnBroadcastChannel(_ instance: ActivityInstance) async {
        await self.perform { client in
            guard let channel = try await client.broadcastChannel(forActivity: instance.id) else { return }
            await self.remember(instance)
            try await client.track(
                name: instance.name, attributesType: instance.attributesType, systemActivityID: instance.id,
                broadcastChannelID: channel)
        }
    }

    private func remember(_ instance: ActivityInstance) { self.tracked[instance.id] = (instance, nil) }

    func end(_ instance: ActivityInstance, reason: ActivityEndReason) async {
        self.tracked[instance.id] = nil
        await self.perform { client in
            try await client.end(name: instance.name, systemActivityID: instance.id, reason: reason, at: Date())
            if reason == .dismissed { try await client.setBroadcastChannel(nil, forActivity: instance.id) }
        }
    }

    func pushToStartToken(_ token: Data, attributesType: String) async {
        guard self.pushToStart[attributesType] != token else { return }
        self.pushToStart[attributesType] = token
        await self.perform { try await $0.setPushToStartToken(token, attributesType: attributesType) }
    }

    func enablement(_ enabled: Bool) async {
        guard self.enabled != enabled else { return }
        self.enabled = enabled
        await self.perform { try await $0.setLiveActivitiesEnabled(enabled) }
    }

    /// The install registered again on a new channel (its old one was forgotten at the gateway): tell the new one
    /// everything the old one knew.
    func resend() async {
        for (type, token) in self.pushToStart {
            await self.perform { try await $0.setPushToStartToken(token, attributesType: type) }
        }
        for (instance, token) in self.tracked.values {
            if let token {
                await self.perform {
                    try await $0.track(
                        name: instance.name, attributesType: instance.attributesType, systemActivityID: instance.id,
                        token: token)
                }
            } else {
                await self.trackOnBroadcastChannel(instance)
            }
        }
    }

    func stop() {
        for task in self.tasks.values { task.cancel() }
        self.tasks = [:]
    }

    /// Runs a client call; what it throws (after the client's own retries) goes to `onError`.
    private func perform(_ call: @Sendable (GatewayClient) async throws -> Void) async {
        do {
            try await call(self.client)
        } catch is CancellationError {
        } catch {
            self.onError(error)
        }
    }
}
