import Foundation

/// The app's side of the gateway's device API: registers the install, forwards every token, tracks and ends activity
/// instances by name, schedules updates, reports taps, forgets. One per app process (`LiveActivitiesKit` adds
/// `watch(...)`, which drives it from ActivityKit).
///
/// Every call is retried by `RetryPolicy` (429 and 503 wait `Retry-After`); other 4xx throw
/// `LiveActivitiesError.rejected` with the gateway's `error_code` and `details.path`. A 404 on a channel call (the
/// channel was forgotten at the gateway) registers the install again once and retries the call on the new channel.
public actor GatewayClient {
    public let configuration: LiveActivitiesConfiguration
    let transport: any HTTPTransport
    let store: any InstallStore
    var record: InstallRecord?
    var registration: Task<String, any Error>?
    /// Settings sent with every registration (the first, and a re-registration after a 404).
    var settings: ChannelSettings
    /// Called after the install registered again on a new channel, so that what the old one knew is sent again.
    var channelChangeHandlers: [UUID: @Sendable (String) async -> Void] = [:]
    /// After `forget()`: channel calls throw `.forgotten` until `register()` is called (a running watch must not
    /// register the install again behind the user's back).
    var forgotten = false

    public init(
        configuration: LiveActivitiesConfiguration, store: (any InstallStore)? = nil,
        transport: any HTTPTransport = URLSessionTransport(), settings: ChannelSettings = ChannelSettings()
    ) {
        self.configuration = configuration
        self.transport = transport
        self.store = store ?? Self.defaultStore()
        self.settings = settings
    }

    static func defaultStore() -> any InstallStore {
        #if canImport(Security)
            return KeychainInstallStore()
        #else
            let base =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            return FileInstallStore(directory: base.appendingPathComponent("LiveActivitiesGateway"))
        #endif
    }

    // MARK: the install

    /// The channel id, registering the install first if it has none (concurrent callers share one registration).
    @discardableResult
    public func register() async throws -> String {
        self.forgotten = false
        return try await self.channel()
    }

    /// The channel id, registering if the install has none (not after `forget()`).
    func channel() async throws -> String {
        guard !self.forgotten else { throw LiveActivitiesError.forgotten }
        if let id = try self.loadRecord().channelID { return id }
        return try await self.registerAgain()
    }

    /// Registers with `settings` (they are kept for later registrations) and returns the channel id.
    @discardableResult
    public func register(_ settings: ChannelSettings) async throws -> String {
        self.settings = settings
        self.forgotten = false
        if try self.loadRecord().channelID != nil {
            try await self.updateChannel(settings.body(installID: nil))
            return try self.loadRecord().channelID!
        }
        return try await self.registerAgain()
    }

    /// The channel id, if the install has registered.
    public var channelID: String? { (try? self.loadRecord())?.channelID }

    /// The install's stable id (made on first use and kept in the store).
    public var installID: String { get throws { try self.loadRecord().installID } }

    /// Live Activities switched off or on in Settings (`ActivityAuthorizationInfo`): the gateway stops targeting this
    /// channel's activities while off. Only a change is sent.
    public func setLiveActivitiesEnabled(_ enabled: Bool) async throws {
        guard try self.loadRecord().liveActivitiesEnabled != enabled else { return }
        try await self.updateChannel(["channel": ["device_type": "ios", "live_activities_enabled": enabled]])
        try self.mutateRecord { $0.liveActivitiesEnabled = enabled }
    }

    /// Forgets the install at the gateway (logout, GDPR: the channel, its tags, tokens and instances) and here.
    /// Until `register()` is called again, channel calls throw `.forgotten` (a running `watch` sends nothing).
    @discardableResult
    public func forget() async throws -> ForgetCounts? {
        struct Removed: Decodable { var removed: ForgetCounts }
        var counts: ForgetCounts?
        if try self.loadRecord().channelID != nil {
            let answer: Removed = try await self.channelCall("DELETE", "", reregister: false)
            counts = answer.removed
        }
        try self.store.clear()
        self.record = nil
        self.forgotten = true
        return counts
    }

    /// Runs `handler` with the new channel id whenever the install registers again on a new channel; returns its
    /// key for `removeChannelChangeHandler`.
    @discardableResult
    public func onChannelChange(_ handler: @escaping @Sendable (String) async -> Void) -> UUID {
        let key = UUID()
        self.channelChangeHandlers[key] = handler
        return key
    }

    public func removeChannelChangeHandler(_ key: UUID) { self.channelChangeHandlers[key] = nil }

    // MARK: tokens and instances

    /// Sets or rotates the push-to-start token of an attributes type (iOS 17.2+ gives one per type).
    /// `contractVersion`: the version of the type's contract this build decodes (issue 48), when it has one; the
    /// gateway then refuses a start this device could not decode.
    public func setPushToStartToken(_ token: Data, attributesType: String, contractVersion: Int? = nil) async throws {
        guard !token.isEmpty else { throw LiveActivitiesError.invalidToken }
        var body: [String: Any] = ["token": PushTokenHex.encode(token)]
        if let contractVersion { body["contract_version"] = contractVersion }
        let _: Empty = try await self.channelCall(
            "PUT", "/push-to-start/\(Self.segment(attributesType))", body: body)
    }

    public func removePushToStartToken(attributesType: String) async throws {
        let _: Empty = try await self.channelCall("DELETE", "/push-to-start/\(Self.segment(attributesType))")
    }

    /// Tracks an instance under `name`: with its update token, or (iOS 18) the broadcast channel it follows. The same
    /// id with a new token is a rotation; a new id under the name replaces the older instance. `contractVersion`: the
    /// version of the type's contract this build decodes, when it has one (the gateway keeps which versions are live).
    @discardableResult
    public func track(
        name: String, attributesType: String, systemActivityID: String, token: Data? = nil,
        broadcastChannelID: String? = nil, contractVersion: Int? = nil
    ) async throws -> TrackResult {
        struct Answer: Decodable { var result: TrackResult }
        var body: [String: Any] = ["attributes_type": attributesType, "system_activity_id": systemActivityID]
        if let token {
            guard !token.isEmpty else { throw LiveActivitiesError.invalidToken }
            body["token"] = PushTokenHex.encode(token)
        }
        if let broadcastChannelID { body["broadcast_channel_id"] = broadcastChannelID }
        if let contractVersion { body["contract_version"] = contractVersion }
        let answer: Answer = try await self.channelCall("PUT", "/live-activities/\(Self.segment(name))", body: body)
        return answer.result
    }

    /// Reports one instance over (ended or dismissed, and when): only that instance, never a newer one under the
    /// same name. Returns how many instances ended at the gateway (0 if it had ended already).
    @discardableResult
    public func end(
        name: String, systemActivityID: String, reason: ActivityEndReason = .ended, at date: Date? = nil
    ) async throws -> Int {
        struct Answer: Decodable { var ended: Int }
        var query = [
            URLQueryItem(name: "system_activity_id", value: systemActivityID),
            URLQueryItem(name: "reason", value: reason.rawValue),
        ]
        if let date { query.append(URLQueryItem(name: "at", value: String(Int64(date.timeIntervalSince1970)))) }
        let answer: Answer = try await self.channelCall(
            "DELETE", "/live-activities/\(Self.segment(name))", query: query)
        return answer.ended
    }

    /// Ends at the gateway every instance of this channel that is not among `systemActivityIDs` (what ActivityKit
    /// still runs): of `attributesTypes` only, when given. Returns how many ended.
    @discardableResult
    public func reconcile(keeping systemActivityIDs: [String], attributesTypes: [String]? = nil) async throws -> Int {
        struct Answer: Decodable { var ended: Int }
        var body: [String: Any] = ["system_activity_ids": systemActivityIDs]
        if let attributesTypes { body["attributes_types"] = attributesTypes }
        let answer: Answer = try await self.channelCall("POST", "/live-activities/reconcile", body: body)
        return answer.ended
    }

    /// The broadcast channel of an activity name (iOS 18), or nil when the name has none.
    public func broadcastChannelID(for name: String) async throws -> String? {
        struct Answer: Decodable {
            struct Channel: Decodable {
                var channelID: String
                enum CodingKeys: String, CodingKey { case channelID = "channel_id" }
            }
            var broadcastChannel: Channel
            enum CodingKeys: String, CodingKey { case broadcastChannel = "broadcast_channel" }
        }
        do {
            let answer: Answer = try await self.call("GET", "/api/broadcast-channels/\(Self.segment(name))")
            return answer.broadcastChannel.channelID
        } catch LiveActivitiesError.rejected(let rejection) where rejection.status == 404 {
            return nil
        }
    }

    // MARK: device-scheduled updates and taps

    /// Schedules an update (or end) of the activity tracked under `name` (Teak's `ScheduleLiveActivityUpdate`).
    /// `contentState` is encoded with a default `JSONEncoder`, as ActivityKit decodes it with a default
    /// `JSONDecoder`. A retry carries the same `Idempotency-Key`, so it is scheduled once.
    public func scheduleUpdate<State: Encodable & Sendable>(
        name: String, time: UpdateTime, contentState: State, event: String? = nil, staleDate: Date? = nil,
        dismissalDate: Date? = nil, alert: (title: String, body: String)? = nil, priority: Int? = nil,
        scheduleName: String? = nil
    ) async throws -> ScheduledUpdate {
        let state = try JSONSerialization.jsonObject(with: JSONEncoder().encode(contentState))
        var body: [String: Any] = ["content_state": state]
        switch time {
        case .after(let seconds): body["offset"] = seconds
        case .at(let date): body["send_at"] = Int64(date.timeIntervalSince1970)
        }
        var system: [String: Any] = [:]
        if let event { system["event"] = event }
        if let staleDate { system["stale_date"] = Int64(staleDate.timeIntervalSince1970) }
        if let dismissalDate { system["dismissal_date"] = Int64(dismissalDate.timeIntervalSince1970) }
        if !system.isEmpty { body["system"] = system }
        if let alert { body["alert"] = ["title": alert.title, "body": alert.body] }
        if let priority { body["priority"] = priority }
        if let scheduleName { body["schedule_name"] = scheduleName }
        return try await self.channelCall(
            "POST", "/live-activities/\(Self.segment(name))/updates", body: body,
            idempotencyKey: UUID().uuidString.lowercased())
    }

    /// Cancels the pending device-scheduled updates of `name`; returns how many.
    @discardableResult
    public func cancelUpdates(name: String) async throws -> Int {
        struct Answer: Decodable { var canceled: Int }
        let answer: Answer = try await self.channelCall("DELETE", "/live-activities/\(Self.segment(name))/updates")
        return answer.canceled
    }

    /// Reports that a tap on the activity opened the app; answers what drove it.
    public func reportLaunch(systemActivityID: String) async throws -> LaunchAttribution {
        try await self.channelCall(
            "POST", "/launches", body: ["system_activity_id": systemActivityID],
            idempotencyKey: UUID().uuidString.lowercased())
    }

    /// Reports the launch if `url` is a widget URL made by `LiveActivityURL.make` (nil otherwise).
    public func reportLaunch(openedURL url: URL) async throws -> LaunchAttribution? {
        guard let id = LiveActivityURL.activityID(in: url) else { return nil }
        return try await self.reportLaunch(systemActivityID: id)
    }
}

/// An answer whose body this client does not need.
struct Empty: Decodable {}
