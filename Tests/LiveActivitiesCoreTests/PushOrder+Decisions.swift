import LiveActivitiesCore
import Testing

/// `PushOrder`: what a push does to a target given the last push sent to it, and which pushes supersede which.
/// Apple: "If this is older than a previous update or push payload, the system ignores this update."
@Suite struct PushOrderDecisionTests {
    let push = PushOrder(timestamp: 100, seq: 10)

    @Test func anUpdateGoesWhereNothingOrSomethingOlderWasSent() {
        #expect(self.push.decision(for: .update, lastSent: nil) == .send)
        #expect(self.push.decision(for: .update, lastSent: PushOrder(timestamp: 99, seq: 50)) == .send)
        #expect(self.push.decision(for: .update, lastSent: PushOrder(timestamp: 100, seq: 9)) == .send)
    }

    @Test func anEqualTimestampIsNotSkipped() {
        // The same push again (a retried chunk) and an older push of the same second both leave it to be sent.
        #expect(self.push.decision(for: .update, lastSent: self.push) == .send)
        #expect(self.push.decision(for: .update, lastSent: PushOrder(timestamp: 100, seq: 1)) == .send)
    }

    @Test func anUpdateOlderThanWhatWasSentIsSkipped() {
        #expect(self.push.decision(for: .update, lastSent: PushOrder(timestamp: 101, seq: 1)) == .skip)
    }

    @Test func anUpdateAcceptedBeforeOneAlreadySentInTheSameSecondIsSuperseded() {
        #expect(self.push.decision(for: .update, lastSent: PushOrder(timestamp: 100, seq: 11)) == .supersede)
    }

    @Test func anEndIsNeverHeldBackForItsTimestamp() {
        #expect(self.push.decision(for: .end, lastSent: PushOrder(timestamp: 101, seq: 11)) == .send)
        #expect(self.push.decision(for: .start, lastSent: PushOrder(timestamp: 101, seq: 11)) == .send)
    }

    @Test func anUpdateSupersedesOlderUpdatesOnly() {
        #expect(self.push.supersedes(PushOrder(timestamp: 100, seq: 9), .update, as: .update))
        #expect(self.push.supersedes(PushOrder(timestamp: 99, seq: 11), .update, as: .update))
        #expect(!self.push.supersedes(PushOrder(timestamp: 101, seq: 9), .update, as: .update))
        #expect(!self.push.supersedes(PushOrder(timestamp: 100, seq: 11), .update, as: .update))
        // Never an end: the activity would stay on the Lock Screen.
        #expect(!self.push.supersedes(PushOrder(timestamp: 1, seq: 1), .end, as: .update))
    }

    @Test func anEndSupersedesEverythingAcceptedBeforeIt() {
        #expect(self.push.supersedes(PushOrder(timestamp: 500, seq: 9), .update, as: .end))
        #expect(self.push.supersedes(PushOrder(timestamp: 1, seq: 9), .end, as: .end))
        #expect(!self.push.supersedes(PushOrder(timestamp: 1, seq: 11), .update, as: .end))
        #expect(!self.push.supersedes(PushOrder(timestamp: 1, seq: 1), .start, as: .end))
    }
}
