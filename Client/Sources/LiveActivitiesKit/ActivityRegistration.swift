#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitStandIn
#endif

/// One attributes type for `GatewayClient.watch`: its activities, and how to name each (the name the gateway tracks
/// it under, which pushes address). Put the name in the attributes, so that an activity started by push and one
/// started in the app name themselves the same way.
public struct ActivityRegistration: Sendable {
    let watched: any WatchedType

    /// `attributesType` is the name APNs payloads give the type (`attributes-type`): the type's name by default.
    /// `contractVersion`: the version of the type's contract (uploaded by the app's CI) that this build decodes, sent
    /// when an activity is tracked and with the push-to-start token; nil when the app has no contracts.
    public static func activity<A: ActivityAttributes & SendableMetatype>(
        _ type: Activity<A>.Type, attributesType: String? = nil, contractVersion: Int? = nil,
        name: @escaping @Sendable (A) -> String
    ) -> ActivityRegistration {
        ActivityRegistration(
            watched: WatchedActivityType<A>(
                attributesType: attributesType ?? String(describing: A.self), contractVersion: contractVersion,
                name: name))
    }
}
