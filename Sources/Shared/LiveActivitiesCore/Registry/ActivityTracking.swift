import Foundation

/// `PUT /api/channels/{id}/live-activities/{name}`: the instance iOS started under `name`.
public struct ActivityTracking: Sendable, Equatable, Decodable {
    public var attributesType: String
    /// The per-activity push token; "" for an instance reached only through its broadcast channel (iOS 18).
    public var token: String
    /// The broadcast channel the activity subscribed to (`pushType: .channel(id)`); "" when none.
    public var broadcastChannelID: String
    public var systemActivityID: String
    /// Epoch seconds: the gateway ends the activity then (one end push), unless it ended before.
    public var endAt: Int64?
    /// The attributes the activity was started with: a renewal (past Apple's 8 hours) starts it again with them.
    public var attributes: [String: JSONValue]?
    /// The contract version of the type that the app's build carries (docs/contracts.md); 0 when not given.
    public var contractVersion: Int = 0

    /// `attributes` as JSON text, "" when absent (how the track statement binds it).
    public var attributesJSON: String {
        guard let attributes else { return "" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(attributes)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case attributesType = "attributes_type"
        case token
        case systemActivityID = "system_activity_id"
        case endAt = "end_at"
        case broadcastChannelID = "broadcast_channel_id"
        case attributes
        case contractVersion = "contract_version"
    }

    public init(
        attributesType: String, token: String, systemActivityID: String, endAt: Int64? = nil,
        broadcastChannelID: String = ""
    ) {
        self.attributesType = attributesType
        self.token = token
        self.broadcastChannelID = broadcastChannelID
        self.systemActivityID = systemActivityID
        self.endAt = endAt
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.attributesType = try c.decode(String.self, forKey: .attributesType)
        try RegistryRules.attributesType(self.attributesType, path: "attributes_type")
        let token = try c.decodeIfPresent(String.self, forKey: .token)
        self.token = try token.map { raw throws(ValidationError) in try RegistryRules.token(raw, path: "token") } ?? ""
        let channel = try c.decodeIfPresent(String.self, forKey: .broadcastChannelID)
        if let channel { try RegistryRules.broadcastChannelID(channel, path: "broadcast_channel_id") }
        self.broadcastChannelID = channel ?? ""
        guard token != nil || channel != nil else {
            throw ValidationError(
                path: "token",
                rule: "is required unless broadcast_channel_id names the channel the activity subscribed to")
        }
        self.systemActivityID = try c.decode(String.self, forKey: .systemActivityID)
        try RegistryRules.systemActivityID(self.systemActivityID, path: "system_activity_id")
        self.attributes = try c.decodeIfPresent([String: JSONValue].self, forKey: .attributes)
        if self.attributes != nil, self.attributesJSON.utf8.count > 4096 {
            throw ValidationError(path: "attributes", rule: "may be at most 4096 bytes of JSON")
        }
        self.contractVersion = try RegistryRules.contractVersion(c, .contractVersion)
        self.endAt = try c.decodeIfPresent(Int64.self, forKey: .endAt)
        if let endAt = self.endAt {
            guard endAt <= LiveActivityNotification.latestSeconds else {
                throw ValidationError(path: "end_at", rule: "must be epoch seconds; this looks like milliseconds")
            }
            guard TimeInterval(endAt) >= Date().timeIntervalSince1970 - ScheduleTime.pastTolerance else {
                throw ValidationError(path: "end_at", rule: "is in the past")
            }
        }
    }
}
