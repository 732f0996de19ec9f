import Foundation

/// `PUT /api/channels/{id}/live-activities/{name}`: the instance iOS started under `name`.
public struct ActivityTracking: Sendable, Equatable, Decodable {
    public var attributesType: String
    public var token: String
    public var systemActivityID: String
    /// Epoch seconds: the gateway ends the activity then (one end push), unless it ended before.
    public var endAt: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case attributesType = "attributes_type"
        case token
        case systemActivityID = "system_activity_id"
        case endAt = "end_at"
    }

    public init(attributesType: String, token: String, systemActivityID: String, endAt: Int64? = nil) {
        self.attributesType = attributesType
        self.token = token
        self.systemActivityID = systemActivityID
        self.endAt = endAt
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.attributesType = try c.decode(String.self, forKey: .attributesType)
        try RegistryRules.attributesType(self.attributesType, path: "attributes_type")
        self.token = try RegistryRules.token(c.decode(String.self, forKey: .token), path: "token")
        self.systemActivityID = try c.decode(String.self, forKey: .systemActivityID)
        try RegistryRules.systemActivityID(self.systemActivityID, path: "system_activity_id")
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
