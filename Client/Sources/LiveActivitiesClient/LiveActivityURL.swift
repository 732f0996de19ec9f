import Foundation

/// Taps: ActivityKit opens the app with the widget's URL, and `NSUserActivityTypeLiveActivity` carries no activity id;
/// so the widget's `widgetURL` carries it, and the app reports the launch when it opens such a URL.
///
/// In the widget: `.widgetURL(LiveActivityURL.make(base: URL(string: "myapp://match")!, activityID:
/// context.activityID))`; in the app: `try await client.reportLaunch(openedURL: url)`.
public enum LiveActivityURL {
    /// The query item that carries the activity id.
    public static let queryItem = "la_activity_id"

    /// `base` with the activity id added (its other query items kept).
    public static func make(base: URL, activityID: String) -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return base }
        var items = (components.queryItems ?? []).filter { $0.name != Self.queryItem }
        items.append(URLQueryItem(name: Self.queryItem, value: activityID))
        components.queryItems = items
        return components.url ?? base
    }

    /// The activity id a tapped widget URL carries, if it carries one.
    public static func activityID(in url: URL) -> String? {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard let value = items.first(where: { $0.name == Self.queryItem })?.value, !value.isEmpty else { return nil }
        return value
    }
}
