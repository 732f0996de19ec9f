import Foundation

/// Stand-in for ActivityKit's `ActivityAttributes` (iOS 16.1+), built only where ActivityKit cannot be imported.
///
/// Apple: "The protocol you implement to describe the content of a Live Activity."
/// `protocol ActivityAttributes : Decodable, Encodable`
/// <https://developer.apple.com/documentation/activitykit/activityattributes>
public protocol ActivityAttributes: Decodable, Encodable {
    /// Apple: "The associated type that describes the dynamic content of a Live Activity."
    /// `associatedtype ContentState : Decodable, Encodable, Hashable`
    /// <https://developer.apple.com/documentation/activitykit/activityattributes/contentstate>
    associatedtype ContentState: Decodable, Encodable, Hashable
}
