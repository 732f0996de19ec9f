extension PushRequest {
    /// Why a notification without `ios.live_activity` is refused: an Airship user's plain alert
    /// (`"notification": {"alert": "..."}`) would otherwise hear only that `notification.alert` is not a known field.
    public static let liveActivityOnlyRule =
        "is required: this gateway sends Live Activities only (no alerts, badges or other platforms); "
        + "put the push in notification.ios.live_activity"

    /// A notification object without `ios.live_activity` is refused at `notification.ios.live_activity`, naming the
    /// fields it had instead; one with it goes on to the usual checks (an unknown field beside it is not a known
    /// field, as anywhere).
    static func requireLiveActivity(_ notification: any Decoder) throws {
        let path = ValidationError.path(notification.codingPath)
        guard let fields = try? notification.container(keyedBy: AnyCodingKey.self) else { return }
        let ios = try? fields.nestedContainer(keyedBy: AnyCodingKey.self, forKey: AnyCodingKey(stringValue: "ios"))
        if let ios, ios.contains(AnyCodingKey(stringValue: IOSKeys.liveActivity.rawValue)) { return }
        var found = fields.allKeys.map { "\(path).\($0.stringValue)" }.filter { !$0.hasSuffix(".ios") }
        found += (ios?.allKeys ?? []).map { "\(path).ios.\($0.stringValue)" }
        let had = found.isEmpty ? "" : " (it has \(found.sorted().joined(separator: ", ")))"
        throw ValidationError(path: "\(path).ios.live_activity", rule: Self.liveActivityOnlyRule + had)
    }
}
