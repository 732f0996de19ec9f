/// What drove the activity a tap opened the app from (Teak's post-launch summary): the schedule and push, or nils.
public struct LaunchAttribution: Sendable, Equatable, Decodable {
    public var scheduleID: String?
    public var scheduleName: String?
    public var pushID: String?

    enum CodingKeys: String, CodingKey {
        case scheduleID = "schedule_id"
        case scheduleName = "schedule_name"
        case pushID = "push_id"
    }
}
