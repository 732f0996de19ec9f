import Foundation
import LiveActivitiesCore
import Testing

@testable import PostgresStore

/// The prepared chunk selects are chosen by the push's shape (`ChunkSelectShape.fits`): every push that fits a shape
/// makes the shape's text, and every push that makes it fits.
@Suite struct BatchChunkStatementShapeTests {
    @Test func theShapeChoosesThePreparedSelectExactlyWhenItsTextIsTheSame() {
        let push = (id: UUID(), order: PushOrder(timestamp: 1_700_000_000, seq: 3))
        var checked = 0
        var fitting = (update: 0, start: 0)
        for event in [LiveActivityNotification.Event.update, .end, .start] {
            for name in [nil, "match"] as [String?] {
                for audience in [Audience.all, .tag("vip", group: "tier"), .channels([UUID()])] {
                    for broadcast in [nil, "channel-1"] as [String?] {
                        for budgets in [[:], ["": 5]] as [[String: Int]] {
                            for rowRefs in [false, true] {
                                var targets = PushTargets(
                                    appID: 7, event: event, name: name, attributesType: "Score", audience: audience)
                                targets.broadcastChannelID = broadcast
                                targets.updateBudgets = budgets
                                var sql = SQLBuilder()
                                let text = targets.chunkSelect(
                                    &sql, after: .lowest, upTo: .highest, limit: 100, sentBy: push, rowRefs: rowRefs)
                                let shape =
                                    "\(event) \(String(describing: name)) \(audience) \(String(describing: broadcast)) \(budgets) \(rowRefs)"
                                let update = UpdateChunkShape.fits(targets, rowRefs: rowRefs)
                                let start = StartChunkShape.fits(targets, rowRefs: rowRefs)
                                #expect(update == (text == UpdateChunkShape.sql), "\(shape)")
                                #expect(start == (text == StartChunkShape.sql), "\(shape)")
                                fitting.update += update ? 1 : 0
                                fitting.start += start ? 1 : 0
                                checked += 1
                            }
                        }
                    }
                }
            }
        }
        #expect(checked == 144)
        // An update or an end of a name, without broadcast, budgets or row places; a start to all, whatever else.
        #expect(fitting.update == 2)
        #expect(fitting.start == 16)
    }

    @Test func aPushThatFitsIsReadPreparedAndAnotherIsNot() {
        let push = (id: UUID(), order: PushOrder(timestamp: 1_700_000_000, seq: 3))
        let targets = PushTargets(appID: 7, event: .update, name: "match", attributesType: nil, audience: .all)
        #expect(BatchChunkStatement<UpdateChunkShape>(targets, after: nil, upTo: nil, limit: 100, sentBy: push) != nil)
        #expect(BatchChunkStatement<StartChunkShape>(targets, after: nil, upTo: nil, limit: 100, sentBy: push) == nil)
        var tagged = targets
        tagged.audience = .tag("vip", group: "tier")
        #expect(BatchChunkStatement<UpdateChunkShape>(tagged, after: nil, upTo: nil, limit: 100, sentBy: push) == nil)
        var start = PushTargets(appID: 7, event: .start, name: "match", attributesType: "Score", audience: .all)
        #expect(BatchChunkStatement<StartChunkShape>(start, after: nil, upTo: nil, limit: 100, sentBy: push) != nil)
        start.audience = .tag("vip", group: "tier")
        #expect(BatchChunkStatement<StartChunkShape>(start, after: nil, upTo: nil, limit: 100, sentBy: push) == nil)
    }
}
