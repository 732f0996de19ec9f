/// `notification.ios.live_activity`: what to tell the activities, before it becomes an APNs body.
public struct LiveActivityNotification: Sendable, Equatable {
    public enum Event: String, Sendable, Codable { case start, update, end }

    public struct Alert: Sendable, Equatable, Codable {
        public var title: String?
        public var body: String?
        public var sound: String?

        public init(title: String? = nil, body: String? = nil, sound: String? = nil) {
            self.title = title
            self.body = body
            self.sound = sound
        }
    }

    public var event: Event
    public var name: String?
    public var attributesType: String?
    public var attributes: [String: JSONValue]?
    public var contentState: [String: JSONValue]?
    public var alert: Alert?
    public var priority: Int
    public var staleDate: Int64?
    public var dismissalDate: Int64?
    public var relevanceScore: Double?
    public var timestamp: Int64?
    /// By tokens, as a broadcast, or both (`DeliveryMode`; default `auto`).
    public var delivery: DeliveryMode
    /// `apns-expiration` in epoch seconds (0: deliver at once or never); nil leaves APNs' default.
    public var expiration: Int64?
    /// A start sent even where the name is active or a start of it is still unconfirmed (`TargetHold.alreadyActive`).
    public var restart: Bool = false

    public init(
        event: Event, name: String? = nil, attributesType: String? = nil, attributes: [String: JSONValue]? = nil,
        contentState: [String: JSONValue]? = nil, alert: Alert? = nil, priority: Int = 10, staleDate: Int64? = nil,
        dismissalDate: Int64? = nil, relevanceScore: Double? = nil, timestamp: Int64? = nil,
        delivery: DeliveryMode = .auto, expiration: Int64? = nil
    ) {
        self.event = event
        self.name = name
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.alert = alert
        self.priority = priority
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.timestamp = timestamp
        self.delivery = delivery
        self.expiration = expiration
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case event, name, attributes, alert, priority, timestamp, delivery, expiration, restart
        case attributesType = "attributes_type"
        case contentState = "content_state"
        case staleDate = "stale_date"
        case dismissalDate = "dismissal_date"
        case relevanceScore = "relevance_score"
    }

    enum AlertKeys: String, CodingKey, CaseIterable { case title, body, sound }

    /// Epoch seconds beyond this are refused: they are milliseconds by mistake (this is the year 5138).
    public static let latestSeconds: Int64 = 99_999_999_999
}

extension LiveActivityNotification: Decodable {
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        func at(_ key: CodingKeys) -> String { decoder.path(key.stringValue) }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.event = try c.decode(Event.self, forKey: .event)
        self.name = try c.decodeIfPresent(String.self, forKey: .name)
        self.attributesType = try c.decodeIfPresent(String.self, forKey: .attributesType)
        self.attributes = try c.decodeIfPresent([String: JSONValue].self, forKey: .attributes)
        self.contentState = try c.decodeIfPresent([String: JSONValue].self, forKey: .contentState)
        if c.contains(.alert) {
            let alertDecoder = try c.superDecoder(forKey: .alert)
            try alertDecoder.rejectUnknownKeys(AlertKeys.self)
            self.alert = try c.decode(Alert.self, forKey: .alert)
        }
        self.priority = try c.decodeIfPresent(Int.self, forKey: .priority) ?? 10
        self.staleDate = try c.decodeIfPresent(Int64.self, forKey: .staleDate)
        self.dismissalDate = try c.decodeIfPresent(Int64.self, forKey: .dismissalDate)
        self.relevanceScore = try c.decodeIfPresent(Double.self, forKey: .relevanceScore)
        self.timestamp = try c.decodeIfPresent(Int64.self, forKey: .timestamp)
        if let raw = try c.decodeIfPresent(String.self, forKey: .delivery) {
            guard let mode = DeliveryMode(rawValue: raw) else {
                throw ValidationError(
                    path: at(.delivery), rule: "must be one of auto, broadcast, tokens, both")
            }
            self.delivery = mode
        } else {
            self.delivery = .auto
        }
        self.expiration = try c.decodeIfPresent(Int64.self, forKey: .expiration)
        self.restart = try c.decodeIfPresent(Bool.self, forKey: .restart) ?? false
        try self.validate(at: at)
    }

    /// The rules of each event (DESIGN.md §5), each failure naming its field.
    func validate(at: (CodingKeys) -> String) throws(ValidationError) {
        if let name { try RegistryRules.activityName(name, path: at(.name)) }
        if let attributesType { try RegistryRules.attributesType(attributesType, path: at(.attributesType)) }
        // Apple: apns-priority 10, 5, or 1 for a broadcast; 1 only there (`PushRequest.route` checks the route).
        guard self.priority == 5 || self.priority == 10 || self.priority == 1 else {
            throw ValidationError(path: at(.priority), rule: "must be 10, 5, or 1 (1 for a broadcast only)")
        }
        if self.priority == 1 && self.delivery == .tokens {
            throw ValidationError(path: at(.priority), rule: "may be 1 only for a broadcast, not with delivery tokens")
        }
        for (key, value) in [
            (CodingKeys.staleDate, self.staleDate), (.dismissalDate, self.dismissalDate), (.timestamp, self.timestamp),
            (.expiration, self.expiration),
        ] {
            guard let value else { continue }
            guard value >= 0 else { throw ValidationError(path: at(key), rule: "must be epoch seconds, not negative") }
            guard value <= Self.latestSeconds else {
                throw ValidationError(path: at(key), rule: "must be epoch seconds; this looks like milliseconds")
            }
        }
        if let alert {
            let alertPath = at(.alert)
            if alert.sound != nil && alert.title == nil {
                throw ValidationError(
                    path: "\(alertPath).sound", rule: "needs a title: iOS plays no sound without an alert")
            }
            if let title = alert.title { try FieldRules.text(title, path: "\(alertPath).title", maxLength: 1024) }
            if let body = alert.body { try FieldRules.text(body, path: "\(alertPath).body", maxLength: 2048) }
            if let sound = alert.sound { try FieldRules.text(sound, path: "\(alertPath).sound", maxLength: 256) }
        }
        if self.dismissalDate != nil && self.event != .end {
            throw ValidationError(path: at(.dismissalDate), rule: "is only allowed on end")
        }
        switch self.event {
        case .start:
            guard self.attributesType != nil else {
                throw ValidationError(path: at(.attributesType), rule: "is required to start")
            }
            guard self.attributes != nil else {
                throw ValidationError(path: at(.attributes), rule: "is required to start")
            }
            guard self.contentState != nil else {
                throw ValidationError(path: at(.contentState), rule: "is required to start")
            }
            guard let alert = self.alert else { throw ValidationError(path: at(.alert), rule: "is required to start") }
            guard alert.title != nil else {
                throw ValidationError(path: "\(at(.alert)).title", rule: "is required to start")
            }
            guard alert.body != nil else {
                throw ValidationError(path: "\(at(.alert)).body", rule: "is required to start")
            }
            // The device tracks the new activity under its name: that is how a start is confirmed.
            guard self.name != nil else {
                throw ValidationError(
                    path: at(.name), rule: "is required to start: the device tracks the new activity under it")
            }
        case .update:
            guard self.name != nil else { throw ValidationError(path: at(.name), rule: "is required to update") }
            guard self.contentState != nil else {
                throw ValidationError(path: at(.contentState), rule: "is required to update")
            }
        case .end:
            guard self.name != nil else { throw ValidationError(path: at(.name), rule: "is required to end") }
        }
        if self.event != .start {
            if self.restart { throw ValidationError(path: at(.restart), rule: "is only allowed on start") }
            if self.attributes != nil { throw ValidationError(path: at(.attributes), rule: "is only allowed on start") }
        }
    }
}
