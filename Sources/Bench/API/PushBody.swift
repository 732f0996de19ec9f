/// A `POST /api/push` body: one live-activity event to an audience, as the benches send it.
struct PushBody: Encodable, Sendable {
    enum Audience: Encodable, Sendable {
        case all
        case iosChannel(String)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .all:
                var container = encoder.singleValueContainer()
                try container.encode("all")
            case .iosChannel(let channel):
                var container = encoder.singleValueContainer()
                try container.encode(["ios_channel": channel])
            }
        }
    }

    struct Alert: Encodable, Sendable {
        var title: String
        var body: String
    }

    struct LiveActivity: Encodable, Sendable {
        var event: String
        var name: String
        var attributesType: String?
        var attributes: [String: String]?
        var contentState: [String: Int]
        var alert: Alert?
        var timestamp: Int?

        enum CodingKeys: String, CodingKey {
            case event, name, attributes, alert, timestamp
            case attributesType = "attributes_type"
            case contentState = "content_state"
        }
    }

    struct IOS: Encodable, Sendable {
        var liveActivity: LiveActivity
        enum CodingKeys: String, CodingKey { case liveActivity = "live_activity" }
    }

    struct Notification: Encodable, Sendable { var ios: IOS }

    var audience: Audience
    var deviceTypes = ["ios"]
    var notification: Notification

    enum CodingKeys: String, CodingKey {
        case audience, notification
        case deviceTypes = "device_types"
    }

    init(audience: Audience = .all, _ liveActivity: LiveActivity) {
        self.audience = audience
        self.notification = Notification(ios: IOS(liveActivity: liveActivity))
    }

    /// An update of `name` whose content state and APNs timestamp are both `timestamp` (the other app's pushes).
    static func update(_ name: String, timestamp: Int, audience: Audience = .all) -> PushBody {
        PushBody(
            audience: audience,
            LiveActivity(event: "update", name: name, contentState: ["n": timestamp], timestamp: timestamp))
    }
}
