import Foundation
import LiveActivitiesCore
import Testing

/// Airship's documented audience forms: compound operators in either case, and a list of values for an atomic
/// selector (any of them); a plain alert is refused as not a live activity.
@Suite struct AudienceAirshipFormsTests {
    func decode(_ json: String) throws -> PushSubmission {
        do {
            return try JSONDecoder().decode(PushSubmission.self, from: Data(json.utf8))
        } catch let error as DecodingError {
            throw ValidationError(decoding: error)
        }
    }

    func audience(_ json: String) throws -> Audience {
        try self.decode(
            #"{"audience":\#(json),"device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"end","name":"m"}}}}"#
        ).pushes[0].audience
    }

    func tag(_ name: String, _ group: String = "device") -> Audience { .tag(name, group: group) }

    @Test func compoundOperatorsInEitherCase() throws {
        let airship = #"{"AND":[{"OR":[{"tag":"sports"},{"tag":"entertainment"}]},{"tag":"language_en"}]}"#
        let expected: Audience = .and([.or([self.tag("sports"), self.tag("entertainment")]), self.tag("language_en")])
        #expect(try self.audience(airship) == expected)
        #expect(try self.audience(airship.lowercased()) == expected)
        #expect(try self.audience(#"{"NOT":{"tag":"a"}}"#) == .not(self.tag("a")))
        #expect(try self.audience(#"{"not":{"OR":[{"and":[{"tag":"a"}]}]}}"#) == .not(.or([.and([self.tag("a")])])))
    }

    @Test func aListOfValuesIsAnyOfThem() throws {
        let id1 = UUID()
        let id2 = UUID()
        let cases: [(String, Audience)] = [
            (
                #"{"tag":["apples","oranges","bananas"]}"#,
                .or([self.tag("apples"), self.tag("oranges"), self.tag("bananas")])
            ),
            (
                #"{"tag":["gold","silver"],"group":"tier"}"#,
                .or([self.tag("gold", "tier"), self.tag("silver", "tier")])
            ),
            (#"{"tag":["only"]}"#, self.tag("only")),
            (#"{"named_user":["alice","bob"]}"#, .or([.namedUser("alice"), .namedUser("bob")])),
            (#"{"named_user":["alice"]}"#, .namedUser("alice")),
            (#"{"ios_channel":["\#(id1)","\#(id2)"]}"#, .channels([id1, id2])),
            (
                #"{"OR":[{"tag":["a","b"]},{"NOT":{"named_user":["x","y"]}}]}"#,
                .or([.or([self.tag("a"), self.tag("b")]), .not(.or([.namedUser("x"), .namedUser("y")]))])
            ),
        ]
        for (json, expected) in cases { #expect(try self.audience(json) == expected, "\(json)") }
    }

    /// A list's `.or` encodes as the list again (schedules and stored pushes decode it at the same depth and size).
    @Test func listsEncodeBackAsLists() throws {
        let cases: [(String, String)] = [
            (#"{"tag":["a","b"]}"#, #"{"group":"device","tag":["a","b"]}"#),
            (
                #"{"OR":[{"tag":"a"},{"tag":"b","group":"g"}]}"#,
                #"{"or":[{"group":"device","tag":"a"},{"group":"g","tag":"b"}]}"#
            ),
            (#"{"named_user":["x","y"]}"#, #"{"named_user":["x","y"]}"#),
            (#"{"NOT":{"tag":"a"}}"#, #"{"not":{"group":"device","tag":"a"}}"#),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for (json, stored) in cases {
            let audience = try self.audience(json)
            let encoded = String(decoding: try encoder.encode(audience), as: UTF8.self)
            #expect(encoded == stored, "\(json)")
            #expect(try self.audience(encoded) == audience, "\(json)")
        }
        let thousand = (0..<1000).map { "t\($0)" }
        let deep =
            String(repeating: #"{"NOT":"#, count: 7)
            + #"{"tag":[\#(thousand.map { "\"\($0)\"" }.joined(separator: ","))]}"#
            + String(repeating: "}", count: 7)
        let audience = try self.audience(deep)
        #expect(try self.audience(String(decoding: try encoder.encode(audience), as: UTF8.self)) == audience)
    }

    @Test func badValuesNameTheirPathAsWritten() {
        let cases: [(String, String)] = [
            (#"{"OR":[{"tag":"a"},{"tag":["b","c",""]}]}"#, "audience.OR[1].tag[2]"),
            (#"{"AND":[{"tag":["b",5]}]}"#, "audience.AND[0].tag[1]"),
            (#"{"tag":[]}"#, "audience.tag"),
            (#"{"tag":5}"#, "audience.tag"),
            (#"{"named_user":["ok",""]}"#, "audience.named_user[1]"),
            (#"{"NOT":{"ios_channel":["nope"]}}"#, "audience.NOT.ios_channel[0]"),
            (#"{"Or":[{"tag":"a"}]}"#, "audience.Or"),
            (#"{"and":[{"tag":"a"}],"AND":[{"tag":"b"}]}"#, "audience"),
            (#"{"OR":[{"named_user":"x","group":"g"}]}"#, "audience.OR[0].group"),
            (#"{"tag":\#((0...1000).map { "\"t\($0)\"" })}"#, "audience.tag"),
        ]
        for (json, path) in cases {
            let error = #expect(throws: ValidationError.self) { try self.audience(json) }
            #expect(error?.path == path, "\(json): \(String(describing: error))")
        }
    }

    @Test func aNotificationWithoutALiveActivitySaysSo() {
        let bodies: [(String, String)] = [
            (#"{"alert":"Hello"}"#, "notification.ios.live_activity"),
            (#"{"ios":{"alert":"Hello","badge":1}}"#, "notification.ios.live_activity"),
            (#"{}"#, "notification.ios.live_activity"),
        ]
        for (notification, path) in bodies {
            let json = #"{"audience":"all","device_types":["ios"],"notification":\#(notification)}"#
            let error = #expect(throws: ValidationError.self) { try self.decode(json) }
            #expect(error?.path == path, "\(notification)")
            #expect(error?.rule.contains("Live Activities only") == true, "\(String(describing: error))")
            #expect(error?.rule.contains("notification.ios.live_activity") == true)
        }
        let error = #expect(throws: ValidationError.self) {
            try self.decode(
                #"[{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"end","name":"m"}}}},{"audience":"all","device_types":["ios"],"notification":{"alert":"x"}}]"#
            )
        }
        #expect(error?.path == "[1].notification.ios.live_activity")
        #expect(error?.rule.contains("[1].notification.alert") == true, "\(String(describing: error))")
        // Beside a live activity, an unknown field keeps the usual answer.
        let beside = #expect(throws: ValidationError.self) {
            try self.decode(
                #"{"audience":"all","device_types":["ios"],"notification":{"alert":"x","ios":{"live_activity":{"event":"end","name":"m"}}}}"#
            )
        }
        #expect(beside?.path == "notification.alert")
        #expect(beside?.rule == ValidationError.unknownFieldRule)
    }
}
