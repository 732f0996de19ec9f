import APNsTransport
import Delivery
import Testing

@Suite struct DeliveryTriageTests {
    typealias R = APNsClient.Result

    @Test func eachAnswerGoesWhereItsClassSays() {
        let results: [R] = [
            .success(.accepted(apnsID: nil)),
            .success(.rejected(status: 410, reason: .unregistered, timestamp: 1)),
            .success(.rejected(status: 400, reason: .badDeviceToken, timestamp: nil)),
            .success(.rejected(status: 503, reason: .serviceUnavailable, timestamp: nil)),
            .success(.rejected(status: 429, reason: .tooManyRequests, timestamp: nil)),
            .failure(.deadlineExceeded),
            .success(.rejected(status: 400, reason: .badCollapseID, timestamp: nil)),
        ]
        let triage = DeliveryTriage.triage(results, indexes: Array(0..<7), finalAttempt: false)
        #expect(triage.accepted == [0])
        #expect(triage.failures.map(\.index) == [1, 2, 6])
        #expect(triage.failures.map(\.invalidatesToken) == [true, true, false])
        #expect(triage.retry == [3, 4, 5])
        #expect(triage.sawRateLimit)
        #expect(triage.configurationError == nil)

        let last = DeliveryTriage.triage(Array(results[3...5]), indexes: [3, 4, 5], finalAttempt: true)
        #expect(last.retry.isEmpty)
        #expect(
            last.failures.map(\.reason) == ["ServiceUnavailable", "TooManyRequests", "transport:deadline_exceeded"])
    }

    @Test func configurationAndCredentialRefusalsStopThePush() {
        for reason in [APNsReason.topicDisallowed, .badTopic, .payloadTooLarge, .invalidProviderToken] {
            let triage = DeliveryTriage.triage(
                [.success(.rejected(status: reason.status, reason: reason, timestamp: nil))], indexes: [0],
                finalAttempt: false)
            #expect(triage.configurationError == reason.name)
        }
    }
}
