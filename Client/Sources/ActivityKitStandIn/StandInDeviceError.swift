/// What the stand-in device refuses.
public enum StandInDeviceError: Error, Equatable, Sendable {
    /// `Activity.request` while Live Activities are switched off (ActivityKit throws its own authorization error).
    case activitiesDisabled
    /// A push-to-start named an attributes type the app never registered (iOS drops it).
    case unknownAttributesType(String)
    case unknownActivity(String)
    /// A body without `"event":"start"`, `attributes-type`, `attributes` and `content-state` in its `aps`.
    case notAStartPayload
}
