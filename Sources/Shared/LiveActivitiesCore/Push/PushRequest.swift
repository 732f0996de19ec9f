import Foundation

/// One push of `POST /api/push` (Airship Push API v3), validated: it can be enqueued as it is.
public struct PushRequest: Sendable, Equatable {
    public var audience: Audience
    public var liveActivity: LiveActivityNotification
    public var campaignCategories: [String]

    public init(audience: Audience, liveActivity: LiveActivityNotification, campaignCategories: [String] = []) {
        self.audience = audience
        self.liveActivity = liveActivity
        self.campaignCategories = campaignCategories
    }

    enum Keys: String, CodingKey, CaseIterable {
        case audience, notification, campaigns
        case deviceTypes = "device_types"
    }
    enum NotificationKeys: String, CodingKey, CaseIterable { case ios }
    enum IOSKeys: String, CodingKey, CaseIterable { case liveActivity = "live_activity" }
    enum CampaignKeys: String, CodingKey, CaseIterable { case categories }

    /// How far ahead of the server's clock a push's own `timestamp` may be, in seconds. iOS ignores a payload older than
    /// the last one it applied, so a timestamp far in the future would silently block every later update.
    public static let timestampLeadLimit: Int64 = 60

    /// The push's own `timestamp` is at most `timestampLeadLimit` ahead of `sentAt` (now, or a schedule's send time).
    /// `prefix`: the push's path in the body ("" for a body that is the push, "[2]." in a list, "push." in a schedule).
    public func checkTimestamp(sentAt: Date, prefix: String = "") throws(ValidationError) {
        guard let timestamp = self.liveActivity.timestamp else { return }
        let latest = Int64(sentAt.timeIntervalSince1970) + Self.timestampLeadLimit
        guard timestamp <= latest else {
            throw ValidationError(
                path: "\(prefix)notification.ios.live_activity.timestamp",
                rule: "may be at most \(Self.timestampLeadLimit) s ahead of the server's clock (at most \(latest))")
        }
    }

    /// The APNs body with `timestamp` (the push's own, or the one the server assigns), for its route: a start to a name
    /// with a channel subscribes to it (`inputPushChannel`), and only a broadcast alone may use 5,120 bytes.
    public func payload(
        timestamp: Int64, route: DeliveryRoute = .tokens, inputPushChannel: String? = nil, prefix: String = ""
    ) throws(ValidationError) -> [UInt8] {
        try APNsPayload.encode(
            self.liveActivity, timestamp: self.liveActivity.timestamp ?? timestamp,
            path: "\(prefix)notification.ios.live_activity", inputPushChannel: inputPushChannel,
            maxBytes: route.maxPayloadBytes)
    }
}

extension PushRequest: Decodable {
    public init(from decoder: any Decoder) throws {
        let at = decoder.path
        try decoder.rejectUnknownKeys(Keys.self)
        let c = try decoder.container(keyedBy: Keys.self)
        self.audience = try Audience.decode(from: try c.superDecoder(forKey: .audience))
        if let all = try? c.decode(String.self, forKey: .deviceTypes) {
            guard all == "all" else {
                throw ValidationError(path: at("device_types"), rule: "must be \"all\" or [\"ios\"]")
            }
        } else {
            let types = try c.decode([String].self, forKey: .deviceTypes)
            guard types == ["ios"] else {
                throw ValidationError(path: at("device_types"), rule: "must be [\"ios\"]: live activities are iOS only")
            }
        }
        let notification = try c.superDecoder(forKey: .notification)
        try Self.requireLiveActivity(notification)
        try notification.rejectUnknownKeys(NotificationKeys.self)
        let ios = try notification.container(keyedBy: NotificationKeys.self).superDecoder(forKey: .ios)
        try ios.rejectUnknownKeys(IOSKeys.self)
        self.liveActivity = try ios.container(keyedBy: IOSKeys.self).decode(
            LiveActivityNotification.self, forKey: .liveActivity)
        self.campaignCategories = []
        if c.contains(.campaigns) {
            let campaigns = try c.superDecoder(forKey: .campaigns)
            try campaigns.rejectUnknownKeys(CampaignKeys.self)
            let categories = try campaigns.container(keyedBy: CampaignKeys.self).decode(
                [String].self, forKey: .categories)
            guard categories.count <= 10 else {
                throw ValidationError(path: at("campaigns.categories"), rule: "may list at most 10")
            }
            for (index, category) in categories.enumerated() {
                try FieldRules.text(category, path: at("campaigns.categories[\(index)]"), maxLength: 64)
            }
            self.campaignCategories = categories
        }
        // The size check needs the encoding; a 10-digit timestamp stands in for the one assigned at send. The route
        // (and with it the limit: 4,096 bytes, or 5,120 for a broadcast alone) is known once the name's channel is.
        _ = try APNsPayload.encode(
            self.liveActivity, timestamp: self.liveActivity.timestamp ?? 1_800_000_000,
            path: at("notification.ios.live_activity"),
            maxBytes: self.liveActivity.delivery == .tokens ? APNsPayload.maxBytes : APNsPayload.broadcastMaxBytes)
    }
}

/// The body of `POST /api/push`: one push object, or a list of them (as Airship accepts).
public struct PushSubmission: Sendable, Decodable {
    public var pushes: [PushRequest]

    public init(pushes: [PushRequest]) { self.pushes = pushes }

    public init(from decoder: any Decoder) throws {
        self.pushes = try OneOrMany<PushRequest>(from: decoder).elements
    }

    /// Every push's own timestamp is within `PushRequest.timestampLeadLimit` of `now`.
    public func checkTimestamps(now: Date) throws(ValidationError) {
        for (index, push) in self.pushes.enumerated() {
            try push.checkTimestamp(sentAt: now, prefix: self.pushes.count > 1 ? "[\(index)]." : "")
        }
    }
}
