import LiveActivitiesCore
import Testing

@Suite struct ActivityTrackDecisionTests {
    let request = ActivityTracking(attributesType: "Chest", token: "aa", systemActivityID: "S1")

    func current(_ systemID: String = "S1", token: String = "aa", type: String = "Chest", active: Bool = true)
        -> ActivityTrackDecision.Current
    {
        .init(id: 7, systemActivityID: systemID, token: token, attributesType: type, isActive: active)
    }

    @Test func decisions() {
        #expect(ActivityTrackDecision.decide(current: nil, requested: self.request, requestedHasEnded: false) == .start)
        #expect(
            ActivityTrackDecision.decide(current: nil, requested: self.request, requestedHasEnded: true) == .refuseEnded
        )
        #expect(
            ActivityTrackDecision.decide(current: self.current(), requested: self.request, requestedHasEnded: false)
                == .unchanged)
        #expect(
            ActivityTrackDecision.decide(
                current: self.current(token: "bb"), requested: self.request, requestedHasEnded: false)
                == .rotate(instanceID: 7))
        #expect(
            ActivityTrackDecision.decide(
                current: self.current(type: "Other"), requested: self.request, requestedHasEnded: false)
                == .rotate(instanceID: 7))
        #expect(
            ActivityTrackDecision.decide(
                current: self.current(active: false), requested: self.request, requestedHasEnded: false)
                == .rotate(instanceID: 7))
        #expect(
            ActivityTrackDecision.decide(current: self.current("S0"), requested: self.request, requestedHasEnded: false)
                == .replace(instanceID: 7))
        #expect(
            ActivityTrackDecision.decide(current: self.current("S0"), requested: self.request, requestedHasEnded: true)
                == .refuseEnded)
    }

    @Test func tokenRules() throws {
        #expect(try RegistryRules.token("ABCDEF0123456789", path: "t") == "abcdef0123456789")
        #expect(throws: ValidationError.self) { try RegistryRules.token("abc", path: "t") }
        #expect(throws: ValidationError.self) { try RegistryRules.token(String(repeating: "g", count: 16), path: "t") }
        #expect(throws: ValidationError.self) { try RegistryRules.token(String(repeating: "a", count: 402), path: "t") }
        #expect(throws: ValidationError.self) { try RegistryRules.activityName("has space", path: "n") }
        #expect(throws: ValidationError.self) { try RegistryRules.attributesType("Has-Dash", path: "a") }
        try RegistryRules.activityName("chest_timer_0", path: "n")
        try RegistryRules.attributesType("Game.ChestAttributes", path: "a")
    }
}
