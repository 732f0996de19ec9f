import LiveActivitiesCore

extension ActivityPolicies {
    /// `limits`: the app's request rates (per credential role, per gateway) and quotas. A field left out keeps its
    /// value; each has a range.
    public struct Limits: Sendable, Equatable, Codable {
        public var values: [Field: Int] = [:]

        public enum Field: String, CodingKey, CaseIterable, Sendable {
            case serverRequestsPerSecond = "server_requests_per_second"
            case deviceRequestsPerSecond = "device_requests_per_second"
            case maxPendingUpdatesPerActivity = "max_pending_updates_per_activity"
            case maxPendingUpdates = "max_pending_updates"
            case maxSchedules = "max_schedules"
            case maxTagsPerChannel = "max_tags_per_channel"

            var range: ClosedRange<Int> {
                switch self {
                case .serverRequestsPerSecond, .deviceRequestsPerSecond: 1...1_000_000
                case .maxPendingUpdatesPerActivity: 1...10_000
                case .maxPendingUpdates, .maxSchedules: 1...10_000_000
                case .maxTagsPerChannel: 1...100_000
                }
            }
        }

        public init() {}

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(Field.self)
            let c = try decoder.container(keyedBy: Field.self)
            for field in Field.allCases {
                guard let value = try c.decodeIfPresent(Int.self, forKey: field) else { continue }
                guard field.range.contains(value) else {
                    throw ValidationError(
                        path: "limits.\(field.rawValue)",
                        rule: "must be \(field.range.lowerBound) to \(field.range.upperBound)")
                }
                self.values[field] = value
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Field.self)
            for (field, value) in self.values { try c.encode(value, forKey: field) }
        }

        /// The value to bind for a column (nil keeps the column's).
        func value(_ field: Field) -> Int32? { self.values[field].map(Int32.init) }
    }
}
