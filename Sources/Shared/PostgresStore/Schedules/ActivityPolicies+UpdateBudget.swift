import LiveActivitiesCore

extension ActivityPolicies {
    /// At most `priority_10_per_hour` priority-10 updates per instance per hour of an attributes type (the app's
    /// default without one); beyond, an update goes at priority 5 (`downgraded`).
    public struct UpdateBudget: Sendable, Equatable, Codable {
        public var attributesType: String?
        public var priority10PerHour: Int

        enum CodingKeys: String, CodingKey, CaseIterable {
            case attributesType = "attributes_type"
            case priority10PerHour = "priority_10_per_hour"
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let base = ValidationError.path(decoder.codingPath)
            self.attributesType = try ActivityPolicies.attributesType(c, .attributesType, base: base)
            self.priority10PerHour = try c.decode(Int.self, forKey: .priority10PerHour)
            guard (1...3600).contains(self.priority10PerHour) else {
                throw ValidationError(path: "\(base).priority_10_per_hour", rule: "must be 1 to 3600")
            }
        }
    }
}
