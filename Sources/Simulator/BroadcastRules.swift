import Foundation

/// What Apple checks on a broadcast or channel-management request, and what it answers. Pure over the state: the
/// HTTP side is `BroadcastAPI`.
struct BroadcastRules {
    struct Answer {
        var status: Int
        var reason: String?
        var headers: [(String, String)] = []
        var json: [UInt8]?
        var requestID: String
    }

    /// Apple allows a broadcast payload of at most 5,120 bytes (against 4,096 for a device token).
    static let maxPayloadBytes = 5120

    let state: SimulatorState

    // MARK: channel management

    /// `POST /1/apps/<bundle id>/channels` `{"message-storage-policy":0|1,"push-type":"LiveActivity"}`:
    /// 201 with `apns-channel-id`.
    func create(bundleID: String, authorization: String?, body: Data) -> Answer {
        let requestID = UUID().uuidString.lowercased()
        func refuse(_ status: Int, _ reason: String) -> Answer {
            Answer(status: status, reason: reason, requestID: requestID)
        }
        if let refusal = self.authorize(bundleID: bundleID, authorization: authorization) {
            return refuse(refusal.status, refusal.reason)
        }
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let policy = object["message-storage-policy"] as? Int, [0, 1].contains(policy)
        else { return refuse(400, "BadMessageStoragePolicy") }
        // Apple: "push-type: LiveActivity", the only type a channel carries.
        guard object["push-type"] as? String == "LiveActivity" else { return refuse(400, "InvalidPushType") }
        let limit = self.state.currentKnobs.maxChannels
        let channelID = Self.newChannelID()
        let created: Bool = self.state.channels.withLock { channels in
            // Apple: at most 10,000 channels per app per environment; past it, CannotCreateChannelConfig.
            guard channels[bundleID, default: [:]].count < limit else { return false }
            channels[bundleID, default: [:]][channelID] = BroadcastChannelRecord(
                messageStoragePolicy: policy, createdAt: Date().timeIntervalSince1970)
            return true
        }
        guard created else { return refuse(400, "CannotCreateChannelConfig") }
        return Answer(status: 201, headers: [("apns-channel-id", channelID)], requestID: requestID)
    }

    /// `GET /1/apps/<bundle id>/channels` with `apns-channel-id`: the channel's configuration.
    func read(bundleID: String, headers: [String: String]) -> Answer {
        self.withChannel(bundleID: bundleID, headers: headers) { record, _, requestID in
            let json = #"{"message-storage-policy":\#(record.messageStoragePolicy),"push-type":"LiveActivity"}"#
            return Answer(status: 200, json: Array(json.utf8), requestID: requestID)
        }
    }

    /// `DELETE /1/apps/<bundle id>/channels` with `apns-channel-id`: 204; the channel is gone for good.
    func delete(bundleID: String, headers: [String: String]) -> Answer {
        self.withChannel(bundleID: bundleID, headers: headers) { _, channelID, requestID in
            self.state.channels.withLock { _ = $0[bundleID]?.removeValue(forKey: channelID) }
            return Answer(status: 204, requestID: requestID)
        }
    }

    /// `GET /1/apps/<bundle id>/all-channels`: `{"channels":[...]}`.
    func list(bundleID: String, headers: [String: String]) -> Answer {
        let requestID = headers["apns-request-id"] ?? UUID().uuidString.lowercased()
        if let refusal = self.authorize(bundleID: bundleID, authorization: headers["authorization"]) {
            return Answer(status: refusal.status, reason: refusal.reason, requestID: requestID)
        }
        let ids = self.state.channels.withLock { Array(($0[bundleID] ?? [:]).keys).sorted() }
        let json = (try? JSONSerialization.data(withJSONObject: ["channels": ids])) ?? Data()
        return Answer(status: 200, json: Array(json), requestID: requestID)
    }

    // MARK: sends

    /// `POST /4/broadcasts/apps/<bundle id>` with `apns-channel-id`, `apns-push-type: liveactivity`, `apns-priority`
    /// and `apns-expiration`: 200 with `apns-unique-id`.
    func send(bundleID: String, headers: [String: String], body: Data) -> Answer {
        let answer = self.checkSend(bundleID: bundleID, headers: headers, body: body)
        if let reason = answer.reason {
            self.state.broadcastRejected(reason: reason)
        } else if let channelID = headers["apns-channel-id"] {
            self.state.broadcastAccepted(
                channelID: channelID,
                record: RecordedNotification(headers: headers, body: body, receivedAt: Date().timeIntervalSince1970))
        }
        return answer
    }

    private func checkSend(bundleID: String, headers: [String: String], body: Data) -> Answer {
        let requestID = headers["apns-request-id"] ?? UUID().uuidString.lowercased()
        func refuse(_ status: Int, _ reason: String) -> Answer {
            Answer(status: status, reason: reason, requestID: requestID)
        }
        if let refusal = self.authorize(bundleID: bundleID, authorization: headers["authorization"]) {
            return refuse(refusal.status, refusal.reason)
        }
        guard let channelID = headers["apns-channel-id"], !channelID.isEmpty else {
            return refuse(400, "MissingChannelId")
        }
        guard Data(base64Encoded: channelID) != nil else { return refuse(400, "BadChannelId") }
        guard let record = self.state.channels.withLock({ $0[bundleID]?[channelID] }) else {
            return refuse(400, "ChannelNotRegistered")
        }
        guard let pushType = headers["apns-push-type"] else { return refuse(400, "MissingPushType") }
        guard pushType == "liveactivity" else { return refuse(400, "InvalidPushType") }
        // Apple: apns-priority 10, 5, or 1 (1: low priority, broadcast only).
        if let priority = headers["apns-priority"], !["10", "5", "1"].contains(priority) {
            return refuse(400, "BadPriority")
        }
        if let raw = headers["apns-expiration"] {
            guard let expiration = Int(raw) else { return refuse(400, "BadExpirationDate") }
            // Apple: a channel with no message storage accepts only an apns-expiration of 0.
            if record.messageStoragePolicy == 0 && expiration != 0 { return refuse(400, "BadExpirationDate") }
        }
        guard !body.isEmpty else { return refuse(400, "PayloadEmpty") }
        guard body.count <= Self.maxPayloadBytes else { return refuse(413, "PayloadTooLarge") }
        guard RequestValidator.isValidPayload(Array(body), liveActivity: true),
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let aps = object["aps"] as? [String: Any], aps["event"] as? String != "start"
        else {
            // Apple: a broadcast updates or ends activities; it cannot start one.
            return refuse(400, "InvalidPayload")
        }
        return Answer(status: 200, headers: [("apns-unique-id", UUID().uuidString.lowercased())], requestID: requestID)
    }

    // MARK: shared checks

    /// The provider token (as for any APNs request), then whether broadcast is enabled for the bundle.
    private func authorize(bundleID: String, authorization: String?) -> (status: Int, reason: String)? {
        var verified: VerifiedProviderToken?
        let validator = RequestValidator(state: self.state, now: { Date() })
        if let reason = validator.checkProviderToken(authorization, topic: bundleID, verified: &verified) {
            return (reason.status, reason.name)
        }
        if self.state.currentKnobs.broadcastEnabled[bundleID] == false { return (400, "FeatureNotEnabled") }
        return nil
    }

    private func withChannel(
        bundleID: String, headers: [String: String], _ body: (BroadcastChannelRecord, String, String) -> Answer
    ) -> Answer {
        let requestID = headers["apns-request-id"] ?? UUID().uuidString.lowercased()
        if let refusal = self.authorize(bundleID: bundleID, authorization: headers["authorization"]) {
            return Answer(status: refusal.status, reason: refusal.reason, requestID: requestID)
        }
        guard let channelID = headers["apns-channel-id"], !channelID.isEmpty else {
            return Answer(status: 400, reason: "MissingChannelId", requestID: requestID)
        }
        guard Data(base64Encoded: channelID) != nil else {
            return Answer(status: 400, reason: "BadChannelId", requestID: requestID)
        }
        guard let record = self.state.channels.withLock({ $0[bundleID]?[channelID] }) else {
            return Answer(status: 400, reason: "ChannelNotRegistered", requestID: requestID)
        }
        return body(record, channelID, requestID)
    }

    /// 16 random bytes, base64 (Apple's ids are base64; clients must not assume their length).
    static func newChannelID() -> String {
        Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }
}
