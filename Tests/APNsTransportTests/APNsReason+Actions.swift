import APNsTransport
import Testing

@Suite struct APNsReasonTests {
    @Test(arguments: [
        ("Unregistered", APNsAction.dropToken, 410), ("ExpiredToken", .dropToken, 410),
        ("BadDeviceToken", .dropToken, 400),
        ("TooManyRequests", .retryLater, 429), ("InternalServerError", .retryLater, 500),
        ("ServiceUnavailable", .retryLater, 503), ("Shutdown", .retryLater, 503), ("IdleTimeout", .retryLater, 400),
        ("ExpiredProviderToken", .refreshCredentials, 403), ("InvalidProviderToken", .refreshCredentials, 403),
        ("MissingProviderToken", .refreshCredentials, 403), ("BadTopic", .configuration, 400),
        ("MissingTopic", .configuration, 400), ("TopicDisallowed", .configuration, 400),
        ("DeviceTokenNotForTopic", .configuration, 400), ("InvalidPushType", .configuration, 400),
        ("BadEnvironmentKeyInToken", .configuration, 403), ("UnrelatedKeyIdInToken", .configuration, 403),
        ("PayloadTooLarge", .configuration, 413), ("TooManyProviderTokenUpdates", .configuration, 429),
        ("BadCollapseId", .ourBug, 400), ("BadExpirationDate", .ourBug, 400), ("BadMessageId", .ourBug, 400),
        ("BadPriority", .ourBug, 400), ("DuplicateHeaders", .ourBug, 400), ("MissingDeviceToken", .ourBug, 400),
        ("PayloadEmpty", .ourBug, 400), ("BadPath", .ourBug, 404), ("MethodNotAllowed", .ourBug, 405),
    ])
    func designsReasonTable(name: String, action: APNsAction, status: Int) {
        let reason = APNsReason(name: name)
        #expect(reason.name == name)
        #expect(reason.action == action)
        #expect(reason.status == status)
    }

    @Test func unknownReasonsSurviveAndAreRetried() {
        let reason = APNsReason(name: "SomethingNew")
        #expect(reason == .unknown("SomethingNew") && reason.action == .retryLater)
        #expect(APNsReason.allKnown.count == 32)
    }
}
