import Foundation
import LiveActivitiesCore
import PostgresStore
import Testing

/// The start, budget and renewal policies of `PUT /admin/apps/{key}/policies`: each refusal names its field.
@Suite struct ActivityPoliciesDecodingTests {
    static func path(_ json: String) -> String? {
        do {
            _ = try JSONDecoder().decode(ActivityPolicies.self, from: Data(json.utf8))
            return nil
        } catch let error as ValidationError {
            return error.path
        } catch {
            return "\(error)"
        }
    }

    @Test func goodPoliciesDecode() throws {
        let policies = try JSONDecoder().decode(
            ActivityPolicies.self,
            from: Data(
                #"""
                {"start_confirm_seconds":30,"starts_per_channel_per_hour":4,"suspect_after_starts":2,
                 "skip_suspect_tokens":false,"update_budget":[{"priority_10_per_hour":12},
                 {"attributes_type":"MatchAttributes","priority_10_per_hour":6}],
                 "renew":[{"after_seconds":27000,"alert":{"title":"Still on","body":"Extra time"}}]}
                """#.utf8))
        #expect(policies.startConfirmSeconds == 30 && policies.startsPerChannelPerHour == 4)
        #expect(policies.updateBudget.map(\.priority10PerHour) == [12, 6])
        #expect(policies.renew.first?.afterSeconds == 27000)
    }

    @Test func badPoliciesNameTheirField() {
        #expect(Self.path(#"{"start_confirm_seconds":0}"#) == "start_confirm_seconds")
        #expect(Self.path(#"{"starts_per_channel_per_hour":1001}"#) == "starts_per_channel_per_hour")
        #expect(Self.path(#"{"suspect_after_starts":0}"#) == "suspect_after_starts")
        #expect(
            Self.path(#"{"update_budget":[{"priority_10_per_hour":0}]}"#) == "update_budget[0].priority_10_per_hour")
        #expect(
            Self.path(#"{"update_budget":[{"priority_10_per_hour":1},{"priority_10_per_hour":2}]}"#) == "update_budget")
        // Apple ends an activity after 8 hours: a renewal after that has nothing to renew.
        #expect(
            Self.path(#"{"renew":[{"after_seconds":28801,"alert":{"title":"t","body":"b"}}]}"#)
                == "renew[0].after_seconds")
        #expect(Self.path(#"{"renew":[{"after_seconds":60,"alert":{"title":"t"}}]}"#) == "renew[0].alert")
    }
}
