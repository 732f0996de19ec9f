import Foundation
import LiveActivitiesClient

/// The state of one `watch`: what the gateway should know (each activity's latest token, its end, the push-to-start
/// tokens, whether Live Activities are on), what it was told, and the restore barrier (the channel is reconciled
/// once every watched type listed its current activities).
///
/// Nothing is lost to a failed call: the wanted state is kept, marked unsynced, and sent again by `resync()` (every
/// `resyncInterval`, after the install registers on a new channel, or when the app asks). A call the gateway refuses
/// (a 4xx) is reported to `onError` and not sent again: it would be refused again.
actor ActivityWatcher {
    let client: GatewayClient
    let types: [String]
    let onError: @Sendable (any Error) -> Void
    private var pendingTypes: Set<String>
    private var isRestored = false
    private var restoreWaiters: [CheckedContinuation<Void, Never>] = []
    private var reconcilePending = false
    private var followed: Set<String> = []
    private var tasks: [String: Task<Void, Never>] = [:]
    /// Activities running now, by id: what the gateway should track.
    private var running: [String: Wanted] = [:]
    /// Ends and dismissals not yet accepted by the gateway.
    private var ends: [String: WantedEnd] = [:]
    private var pushToStart: [String: (token: Data, contractVersion: Int?, synced: Bool)] = [:]
    private var enabled: (value: Bool, synced: Bool)?

    struct Wanted {
        var instance: ActivityInstance
        var token: Data?
        var synced: Bool
    }
    struct WantedEnd {
        var instance: ActivityInstance
        var reason: ActivityEndReason
        var at: Date
    }

    init(client: GatewayClient, types: [String], onError: @escaping @Sendable (any Error) -> Void) {
        self.client = client
        self.types = types
        self.pendingTypes = Set(types)
        self.onError = onError
    }

    // MARK: the barrier

    func restored(attributesType: String) async {
        self.pendingTypes.remove(attributesType)
        guard self.pendingTypes.isEmpty, !self.isRestored else { return }
        self.reconcilePending = true
        await self.reconcile()
        self.isRestored = true
        for waiter in self.restoreWaiters { waiter.resume() }
        self.restoreWaiters = []
    }

    /// Instances of the watched types that the gateway tracks and that no longer run here ended while the app was
    /// not running. Kept: every activity followed and not ended (one that started during the restore included).
    private func reconcile() async {
        guard self.reconcilePending else { return }
        let keep = Array(self.running.keys).sorted()
        let done = await self.perform {
            _ = try await $0.reconcile(keeping: keep, attributesTypes: self.types)
            try await $0.forgetBroadcastChannels(except: Set(keep))
        }
        if done { self.reconcilePending = false }
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

    func track(_ instance: ActivityInstance, token: Data?) async {
        guard self.ends[instance.id] == nil else { return }
        self.running[instance.id] = Wanted(instance: instance, token: token, synced: false)
        await self.sync(instance.id)
    }

    /// Tells the gateway what it should know of one running activity, unless it knows already.
    private func sync(_ id: String) async {
        guard let wanted = self.running[id], !wanted.synced else { return }
        let instance = wanted.instance
        let done: Bool
        if let token = wanted.token {
            done = await self.perform {
                try await $0.track(
                    name: instance.name, attributesType: instance.attributesType, systemActivityID: instance.id,
                    token: token, contractVersion: instance.contractVersion)
            }
        } else {
            // No token: tracked only where the install started it on a broadcast channel (kept across launches).
            done = await self.perform { client in
                guard let channel = try await client.broadcastChannel(forActivity: instance.id) else { return }
                try await client.track(
                    name: instance.name, attributesType: instance.attributesType, systemActivityID: instance.id,
                    broadcastChannelID: channel, contractVersion: instance.contractVersion)
            }
        }
        // Marked synced only if nothing newer was wanted while the call was out.
        if done, self.running[id]?.token == wanted.token { self.running[id]?.synced = true }
    }

    func end(_ instance: ActivityInstance, reason: ActivityEndReason) async {
        self.running[instance.id] = nil
        // A dismissal supersedes an unsent end: it ends the instance too.
        if self.ends[instance.id]?.reason == .dismissed { return }
        self.ends[instance.id] = WantedEnd(instance: instance, reason: reason, at: Date())
        await self.sendEnd(instance.id)
    }

    private func sendEnd(_ id: String) async {
        guard let end = self.ends[id] else { return }
        let done = await self.perform { client in
            try await client.end(
                name: end.instance.name, systemActivityID: id, reason: end.reason, at: end.at)
            if end.reason == .dismissed { try await client.setBroadcastChannel(nil, forActivity: id) }
        }
        if done, self.ends[id]?.reason == end.reason { self.ends[id] = nil }
    }

    func pushToStartToken(_ token: Data, attributesType: String, contractVersion: Int?) async {
        guard self.pushToStart[attributesType]?.token != token else { return }
        self.pushToStart[attributesType] = (token, contractVersion, false)
        await self.sendPushToStart(attributesType)
    }

    private func sendPushToStart(_ type: String) async {
        guard let wanted = self.pushToStart[type], !wanted.synced else { return }
        let done = await self.perform {
            try await $0.setPushToStartToken(
                wanted.token, attributesType: type, contractVersion: wanted.contractVersion)
        }
        if done, self.pushToStart[type]?.token == wanted.token { self.pushToStart[type]?.synced = true }
    }

    func enablement(_ enabled: Bool) async {
        guard self.enabled?.value != enabled else { return }
        self.enabled = (enabled, false)
        await self.sendEnablement()
    }

    private func sendEnablement() async {
        guard let wanted = self.enabled, !wanted.synced else { return }
        let done = await self.perform { try await $0.setLiveActivitiesEnabled(wanted.value) }
        if done, self.enabled?.value == wanted.value { self.enabled?.synced = true }
    }

    // MARK: catching up

    /// Sends again everything the gateway has not accepted yet.
    func resync() async {
        await self.sendEnablement()
        for type in self.pushToStart.keys { await self.sendPushToStart(type) }
        for id in self.running.keys { await self.sync(id) }
        for id in self.ends.keys { await self.sendEnd(id) }
        await self.reconcile()
    }

    /// The install registered again on a new channel (its old one was forgotten at the gateway): everything the old
    /// one knew is sent to the new one.
    func channelChanged() async {
        for id in self.running.keys { self.running[id]?.synced = false }
        for type in self.pushToStart.keys { self.pushToStart[type]?.synced = false }
        if self.enabled != nil { self.enabled?.synced = false }
        await self.resync()
    }

    var isSynced: Bool {
        self.running.values.allSatisfy(\.synced) && self.ends.isEmpty && !self.reconcilePending
            && self.pushToStart.values.allSatisfy(\.synced) && (self.enabled?.synced ?? true)
    }

    func stop() {
        for task in self.tasks.values { task.cancel() }
        self.tasks = [:]
        self.isRestored = true
        for waiter in self.restoreWaiters { waiter.resume() }
        self.restoreWaiters = []
    }

    /// Runs a client call: true when it is settled (done, or refused by the gateway: reported to `onError`, not
    /// retried), false when it should be sent again (the gateway was unreachable after the client's retries).
    private func perform(_ call: @Sendable (GatewayClient) async throws -> Void) async -> Bool {
        do {
            try await call(self.client)
            return true
        } catch is CancellationError {
            return false
        } catch LiveActivitiesError.forgotten {
            return true
        } catch let error as LiveActivitiesError {
            self.onError(error)
            if case .rejected = error { return true }
            return false
        } catch {
            self.onError(error)
            return false
        }
    }
}
