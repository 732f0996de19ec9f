/// The API shape again (`audience`, `device_types`, `notification.ios.live_activity`, `campaigns`): a schedule
/// stores its push this way and decodes (and so validates) it again when it fires.
extension PushRequest: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(self.audience, forKey: .audience)
        try c.encode(["ios"], forKey: .deviceTypes)
        var notification = c.nestedContainer(keyedBy: NotificationKeys.self, forKey: .notification)
        var ios = notification.nestedContainer(keyedBy: IOSKeys.self, forKey: .ios)
        try ios.encode(self.liveActivity, forKey: .liveActivity)
        if !self.campaignCategories.isEmpty {
            var campaigns = c.nestedContainer(keyedBy: CampaignKeys.self, forKey: .campaigns)
            try campaigns.encode(self.campaignCategories, forKey: .categories)
        }
    }
}

extension LiveActivityNotification: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(self.event, forKey: .event)
        try c.encodeIfPresent(self.name, forKey: .name)
        try c.encodeIfPresent(self.attributesType, forKey: .attributesType)
        try c.encodeIfPresent(self.attributes, forKey: .attributes)
        try c.encodeIfPresent(self.contentState, forKey: .contentState)
        try c.encodeIfPresent(self.alert, forKey: .alert)
        try c.encode(self.priority, forKey: .priority)
        try c.encodeIfPresent(self.staleDate, forKey: .staleDate)
        try c.encodeIfPresent(self.dismissalDate, forKey: .dismissalDate)
        try c.encodeIfPresent(self.relevanceScore, forKey: .relevanceScore)
        try c.encodeIfPresent(self.timestamp, forKey: .timestamp)
        if self.delivery != .auto { try c.encode(self.delivery.rawValue, forKey: .delivery) }
        try c.encodeIfPresent(self.expiration, forKey: .expiration)
        if self.restart { try c.encode(true, forKey: .restart) }
    }
}
