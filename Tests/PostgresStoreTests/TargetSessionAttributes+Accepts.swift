import PostgresDatabase
import Testing

/// libpq's `target_session_attrs` (PostgreSQL 15, 34.1.2): which server each value accepts, from what the server says
/// of itself. A primary is not in recovery and takes writes; a standby is in recovery and read-only; a primary with
/// `default_transaction_read_only = on` is neither "read-write" nor "standby".
@Suite struct TargetSessionAttributesTests {
    static let primary = TargetSessionAttributes.ServerState(inRecovery: false, readOnly: false)
    static let standby = TargetSessionAttributes.ServerState(inRecovery: true, readOnly: true)
    static let readOnlyPrimary = TargetSessionAttributes.ServerState(inRecovery: false, readOnly: true)

    @Test(arguments: [
        // value, accepts primary, standby, read-only primary
        (TargetSessionAttributes.any, true, true, true),
        (.readWrite, true, false, false),
        (.readOnly, false, true, true),
        (.primary, true, false, true),
        (.standby, false, true, false),
        (.preferStandby, false, true, false),
    ])
    func acceptsAsLibpqSays(target: TargetSessionAttributes, primary: Bool, standby: Bool, readOnlyPrimary: Bool) {
        #expect(target.accepts(Self.primary) == primary)
        #expect(target.accepts(Self.standby) == standby)
        #expect(target.accepts(Self.readOnlyPrimary) == readOnlyPrimary)
    }

    /// "prefer-standby: first try to find a standby server, but if none of the listed hosts is a standby server, try
    /// again in any mode".
    @Test func onlyPreferStandbyTakesAnyServerOnASecondPass() {
        #expect(TargetSessionAttributes.allCases.filter(\.acceptsOnSecondPass) == [.preferStandby])
    }
}
