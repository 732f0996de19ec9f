/// Stand-in for ActivityKit's `PushType` (iOS 16.1+).
///
/// Apple: "The structure that offers constants you use to configure a Live Activity to receive updates through
/// ActivityKit push notifications." `struct PushType` "You can only specify one PushType."
/// <https://developer.apple.com/documentation/activitykit/pushtype>
public struct PushType: Sendable, Equatable {
    /// Which kind, for the stand-in device (ActivityKit keeps this private).
    public enum Kind: Sendable, Equatable {
        case token
        case channel(String)
    }
    public let kind: Kind

    /// "A constant you use to configure a Live Activity that updates its dynamic content by receiving ActivityKit push
    /// notifications." `static var token: PushType { get }`
    /// <https://developer.apple.com/documentation/activitykit/pushtype/token>
    public static var token: PushType { PushType(kind: .token) }

    /// "A constant to configure a Live Activity that updates its dynamic content for broadcast channels. The channel ID
    /// is a base64-encoded string." `static func channel(_ name: String) -> PushType` (iOS 18.0+)
    /// <https://developer.apple.com/documentation/activitykit/pushtype/channel(_:)>
    @available(iOS 18.0, *)
    public static func channel(_ name: String) -> PushType { PushType(kind: .channel(name)) }
}
