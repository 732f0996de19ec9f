import Foundation
import LiveActivitiesCore
import Testing

@testable import PostgresStore

/// The prepared chunk select is chosen by the push's shape (`BatchChunkStatement.fits`): every shape that fits makes
/// the prepared text, and every shape that makes it fits.
@Suite struct BatchChunkStatementShapeTests {
    @Test func theShapeChoosesThePreparedSelectExactlyWhenItsTextIsTheSame() {
        let push = (id: UUID(), order: PushOrder(timestamp: 1_700_000_000, seq: 3))
        var checked = 0
        for event in [LiveActivityNotification.Event.update, .end, .start] {
            for name in [nil, "match"] as [String?] {
                for audience in [Audience.all, .tag("vip", group: "tier"), .channels([UUID()])] {
                    for broadcast in [nil, "channel-1"] as [String?] {
                        for budgets in [[:], ["": 5]] as [[String: Int]] {
                            var targets = PushTargets(
                                appID: 7, event: event, name: name, attributesType: "Score", audience: audience)
                            targets.broadcastChannelID = broadcast
                            targets.updateBudgets = budgets
                            var sql = SQLBuilder()
                            let text = targets.chunkSelect(
                                &sql, after: .lowest, upTo: .highest, limit: 100, sentBy: push, rowRefs: false)
                            #expect(
                                BatchChunkStatement.fits(targets) == (text == BatchChunkStatement.sql),
                                "\(event) \(String(describing: name)) \(audience) \(String(describing: broadcast)) \(budgets)"
                            )
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked == 72)
    }

    @Test func aPushThatFitsIsReadPreparedAndAnotherIsNot() {
        let push = (id: UUID(), order: PushOrder(timestamp: 1_700_000_000, seq: 3))
        let targets = PushTargets(appID: 7, event: .update, name: "match", attributesType: nil, audience: .all)
        #expect(BatchChunkStatement(targets, after: nil, upTo: nil, limit: 100, sentBy: push) != nil)
        var tagged = targets
        tagged.audience = .tag("vip", group: "tier")
        #expect(BatchChunkStatement(tagged, after: nil, upTo: nil, limit: 100, sentBy: push) == nil)
    }
}
