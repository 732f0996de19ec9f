/// What the app secret may write on a channel (Airship's device-side security settings). The app secret ships in
/// every copy of the app, so anyone can call with it: by default a device may set only its `device` tags, never its
/// named user; the master secret writes everything. The app's policy widens it (`device_tag_groups`,
/// `device_named_user`).
public struct DevicePermissions: Sendable, Equatable {
    /// Tag groups a device may replace (`tags` is the `device` group).
    public var tagGroups: Set<String>
    /// Whether a device may set its named user.
    public var namedUser: Bool

    public static let `default` = DevicePermissions(tagGroups: [ChannelRegistration.deviceTagGroup], namedUser: false)

    public init(tagGroups: Set<String>, namedUser: Bool) {
        self.tagGroups = tagGroups
        self.namedUser = namedUser
    }

    /// The first field of `registration` a device may not write, as a 403's details name it.
    public func refusal(of registration: ChannelRegistration) -> ValidationError? {
        if registration.namedUserID != nil, !self.namedUser {
            return ValidationError(
                path: "channel.named_user_id",
                rule: "may be set only with the master secret (app policy device_named_user)")
        }
        if registration.tags != nil, !self.tagGroups.contains(ChannelRegistration.deviceTagGroup) {
            return ValidationError(
                path: "channel.tags", rule: "may be set only with the master secret (app policy device_tag_groups)")
        }
        for group in (registration.tagGroups ?? [:]).keys.sorted() where !self.tagGroups.contains(group) {
            return ValidationError(
                path: "channel.tag_groups.\(group)",
                rule: "may be set only with the master secret (app policy device_tag_groups)")
        }
        return nil
    }
}
