extension PushRequest {
    /// Whether the route depends on the name's broadcast channel: a start (which subscribes to it with
    /// `input-push-channel`) and any update or end that may go as a broadcast.
    public var needsBroadcastChannel: Bool {
        let notification = self.liveActivity
        guard notification.name != nil else { return false }
        switch notification.delivery {
        case .tokens: return false
        case .broadcast, .both: return true
        case .auto: return notification.event == .start || self.audience == .all
        }
    }

    /// The route for this push, given its name's channel in the app's environment (nil: none). Each refusal names its
    /// field; `prefix` is the push's path in the body ("" alone, "[2]." in a list, "push." in a schedule).
    public func route(channel: (id: String, storage: BroadcastStorage)?, prefix: String = "") throws(ValidationError)
        -> DeliveryRoute
    {
        let notification = self.liveActivity
        let at = { (field: String) in "\(prefix)notification.ios.live_activity.\(field)" }
        let route: DeliveryRoute
        switch (notification.delivery, notification.event) {
        case (.tokens, _), (.auto, .start):
            route = .tokens
        case (.broadcast, .start), (.both, .start):
            // Apple: a broadcast cannot start an activity; a push-to-start subscribes the new activity to a channel.
            throw ValidationError(
                path: at("delivery"),
                rule: "cannot be \(notification.delivery.rawValue) for a start: a broadcast cannot start an activity "
                    + "(a start to a name with a channel subscribes it with input-push-channel)")
        case (.auto, _):
            if let channel, self.audience == .all { route = .broadcast(channelID: channel.id) } else { route = .tokens }
        case (let mode, _):
            guard let channel else {
                throw ValidationError(
                    path: at("delivery"),
                    rule: "\(mode.rawValue) needs a broadcast channel for the name \(notification.name ?? ""): "
                        + "create it with PUT /api/broadcast-channels/{name}")
            }
            guard self.audience == .all else {
                throw ValidationError(
                    path: "\(prefix)audience",
                    rule: "must be \"all\" with delivery \(mode.rawValue): a broadcast reaches every subscriber")
            }
            route = mode == .broadcast ? .broadcast(channelID: channel.id) : .both(channelID: channel.id)
        }
        if notification.priority == 1, route.name != "broadcast" {
            throw ValidationError(
                path: at("priority"),
                rule: "may be 1 only for a push that goes as a broadcast alone (delivery \(route.name))")
        }
        if let expiration = notification.expiration, expiration != 0, route.channelID != nil,
            channel?.storage == .noStorage
        {
            // Apple: a non-zero apns-expiration is refused on a channel that stores no message.
            throw ValidationError(
                path: at("expiration"),
                rule: "must be 0 or absent: the name's broadcast channel stores nothing (storage none)")
        }
        return route
    }
}
