import Foundation
import LiveActivitiesClient
import Testing

@Suite struct RetryPolicyTests {
    @Test func backoffDoublesUpToTheCeilingWithFullJitter() {
        let policy = RetryPolicy(maxAttempts: 6, baseDelay: 0.5, maxDelay: 4)
        #expect(policy.delay(afterAttempt: 1, retryAfter: nil, random: 1) == 0.5)
        #expect(policy.delay(afterAttempt: 2, retryAfter: nil, random: 1) == 1)
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, random: 1) == 2)
        #expect(policy.delay(afterAttempt: 5, retryAfter: nil, random: 1) == 4, "capped at maxDelay")
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, random: 0.25) == 0.5, "jittered below the ceiling")
        #expect(policy.delay(afterAttempt: 3, retryAfter: 7, random: 0.1) == 7, "Retry-After wins")
    }

    @Test func retryAfterIsSecondsOrAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_795_600_000)
        #expect(RetryPolicy.retryAfter("3", now: now) == 3)
        #expect(RetryPolicy.retryAfter(" 120 ", now: now) == 120)
        let later = now.addingTimeInterval(90)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(RetryPolicy.retryAfter(formatter.string(from: later), now: now) == 90)
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
        #expect(RetryPolicy.retryAfter("-1", now: now) == nil)
        #expect(RetryPolicy.retryAfter(nil, now: now) == nil)
    }
}

@Suite struct DeviceValuesTests {
    @Test func tokensAreLowercaseHexOfTheBytes() {
        let token = Data([0x00, 0xab, 0x10, 0xff])
        #expect(PushTokenHex.encode(token) == "00ab10ff")
        #expect(PushTokenHex.decode("00AB10ff") == token)
        #expect(PushTokenHex.decode("abc") == nil, "odd length")
        #expect(PushTokenHex.decode("zz") == nil)
        #expect(PushTokenHex.decode("") == nil)
    }

    @Test func theWidgetURLCarriesTheActivityID() {
        let url = LiveActivityURL.make(base: URL(string: "game://match?tab=live")!, activityID: "A1-B2")
        #expect(url.absoluteString == "game://match?tab=live&la_activity_id=A1-B2")
        #expect(LiveActivityURL.activityID(in: url) == "A1-B2")
        #expect(LiveActivityURL.activityID(in: URL(string: "game://match")!) == nil)
    }

    @Test func theFileStoreKeepsTheRecordPrivate() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("la-store-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileInstallStore(directory: directory)
        #expect(try store.load() == nil)
        var record = InstallRecord(installID: "install-1")
        record.channelID = "c-1"
        record.channelSecret = "secret"
        record.broadcastActivities = ["a": "Y2g="]
        try store.save(record)
        #expect(try store.load() == record)
        let mode = try FileManager.default.attributesOfItem(atPath: store.url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try store.clear()
        #expect(try store.load() == nil)
    }
}
