import LiveActivitiesCore

extension ActivityPolicies {
    /// Renew an instance of an attributes type (the app's default without one) once it is `after_seconds` old and
    /// had an update within the last hour: an end and a push-to-start of the same name, with this alert.
    public struct Renew: Sendable, Equatable, Codable {
        public var attributesType: String?
        public var afterSeconds: Int
        public var alert: LiveActivityNotification.Alert

        enum CodingKeys: String, CodingKey, CaseIterable {
            case attributesType = "attributes_type"
            case afterSeconds = "after_seconds"
            case alert
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let base = ValidationError.path(decoder.codingPath)
            self.attributesType = try ActivityPolicies.attributesType(c, .attributesType, base: base)
            self.afterSeconds = try c.decode(Int.self, forKey: .afterSeconds)
            // Apple ends an activity 8 hours after it started: a renewal later than that finds nothing to renew.
            guard (1...28_800).contains(self.afterSeconds) else {
                throw ValidationError(path: "\(base).after_seconds", rule: "must be 1 to 28800 (8 hours)")
            }
            self.alert = try c.decode(LiveActivityNotification.Alert.self, forKey: .alert)
            guard let title = self.alert.title, let body = self.alert.body else {
                throw ValidationError(
                    path: "\(base).alert", rule: "needs a title and a body: a push-to-start shows an alert")
            }
            try FieldRules.text(title, path: "\(base).alert.title", maxLength: 1024)
            try FieldRules.text(body, path: "\(base).alert.body", maxLength: 2048)
        }
    }
}
