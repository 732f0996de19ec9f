import Foundation
import LiveActivitiesCore
import PostgresNIO
import TestSupport
import Testing

@testable import PostgresStore

/// A start's holds as its chunk select reads them (`PushTargets.startChunkSelect`, all channels of a chunk at once)
/// against the rules of `TargetHold`, read again here in Swift, over channels given random attempts (other pushes'
/// and the push's own, of the name and another, pending and started, of the channel's token and another, windows open
/// and closed, in the last hour and before it, before and after the token's registration) and live activities
/// (active, too old). Times are whole minutes from now, odd for attempts and even for the rules' own edges (now, the
/// hour, registrations), so that no comparison falls within the seconds the test takes.
@Suite struct StartHoldRulesTests {
    /// One attempt, its times in minutes from now (negative: before).
    struct Attempt {
        var own: Bool
        var name: String
        var pending: Bool
        var ownToken: Bool
        var accepted: Int
        var windowUntil: Int
    }

    /// One channel's state as the holds read it.
    struct Channel {
        var id: UUID
        var token: String
        var registered: Int
        /// Minutes since an active `match` started on the channel, if one did.
        var liveStarted: Int?
        var attempts: [Attempt]
    }

    /// The rules (`TargetHold`): the app's `suspect_after_starts` 2 and `starts_per_channel_per_hour` 3, suspect
    /// tokens skipped, activities older than the app's `activity_max_age` (8 hours) not counted as active.
    static func expectedHold(_ c: Channel, restart: Bool) -> TargetHold {
        let others = c.attempts.filter { !$0.own }
        let active = c.liveStarted.map { $0 < 8 * 60 } ?? false
        if !restart && (active || others.contains { $0.name == "match" && $0.pending && $0.windowUntil > 0 }) {
            return .alreadyActive
        }
        let sinceRegistered = others.filter {
            $0.ownToken && $0.accepted > c.registered && $0.windowUntil > c.registered
        }
        .sorted { $0.windowUntil > $1.windowUntil }.prefix(2)
        if sinceRegistered.count == 2 && sinceRegistered.allSatisfy({ $0.pending && $0.windowUntil <= 0 }) {
            return .suspectToken
        }
        if others.filter({ $0.windowUntil > -60 && $0.accepted > -60 }).count >= 3 { return .startBudget }
        return .none
    }

    /// The first channels' attempts, set by hand so that each filter decides a hold whatever the random ones do.
    static let fixtures: [(registered: Int, attempts: [Attempt], hold: TargetHold)] = [
        // A token registered within the hour whose two attempts since are both unanswered.
        (
            -46,
            [-41, -31].map {
                Attempt(own: false, name: "match", pending: true, ownToken: true, accepted: $0, windowUntil: $0 + 10)
            }, .suspectToken
        ),
        // The same with another token's attempts: not this one's.
        (
            -46,
            [-41, -31].map {
                Attempt(own: false, name: "match", pending: true, ownToken: false, accepted: $0, windowUntil: $0 + 10)
            }, .none
        ),
        // The push's own start of the name, still in its window: it holds back no target of its own push.
        (-10, [Attempt(own: true, name: "match", pending: true, ownToken: true, accepted: -3, windowUntil: 17)], .none),
        // Three starts of another name in the hour, confirmed: the budget counts every start.
        (
            -200,
            [-41, -31, -21].map {
                Attempt(own: false, name: "other", pending: false, ownToken: true, accepted: $0, windowUntil: $0 + 6)
            }, .startBudget
        ),
    ]

    @Test func theChunksHoldsFollowTheirRules() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let policies = try await gw.request(
                .put, "/admin/apps/\(app.key)/policies",
                json: #"{"suspect_after_starts":2,"starts_per_channel_per_hour":3,"skip_suspect_tokens":true}"#,
                auth: gw.admin)
            try #require(policies.status == .ok, "\(policies.text)")
            let ids = try await gw.registerStarters(app, count: 100)
            let appID = try await gw.database.scalar("SELECT id FROM apps WHERE app_key = \(app.key)", as: Int64.self)
            let own = UUID()
            var random = SplitMix(seed: 50)
            var channels: [Channel] = []
            for id in ids {
                let channelID = try #require(UUID(uuidString: id))
                let token = try await gw.database.scalar(
                    "SELECT token FROM push_to_start_tokens WHERE channel_id = \(channelID)", as: String.self)
                var channel = Channel(
                    id: channelID, token: token,
                    registered: -([200, 100, 46, 10] as [Int]).randomElement(using: &random)!,
                    liveStarted: ([nil, nil, nil, 30, 9 * 60] as [Int?]).randomElement(using: &random)!, attempts: [])
                for _ in 0..<Int.random(in: 0...5, using: &random) {
                    let accepted = -([191, 151, 97, 71, 53, 41, 31, 21, 13, 3] as [Int]).randomElement(using: &random)!
                    let window = accepted + [6, 20, 40, 120].randomElement(using: &random)!
                    // Distinct window ends: the suspect rule takes the latest two, and a tie would make either one.
                    if channel.attempts.contains(where: { $0.windowUntil == window }) { continue }
                    channel.attempts.append(
                        Attempt(
                            own: Int.random(in: 0..<6, using: &random) == 0,
                            name: Int.random(in: 0..<4, using: &random) == 0 ? "other" : "match",
                            pending: Int.random(in: 0..<4, using: &random) != 0,
                            ownToken: Int.random(in: 0..<5, using: &random) != 0, accepted: accepted,
                            windowUntil: window))
                }
                if channels.count < Self.fixtures.count {
                    let fixture = Self.fixtures[channels.count]
                    (channel.registered, channel.liveStarted, channel.attempts) = (
                        fixture.registered, nil, fixture.attempts
                    )
                    #expect(Self.expectedHold(channel, restart: false) == fixture.hold)
                }
                try await Self.write(channel, appID: appID, own: own, gw.database)
                channels.append(channel)
            }
            let targets = PushTargets(
                appID: appID, event: .start, name: "match", attributesType: "MatchAttributes", audience: .all)
            var restarted = targets
            restarted.restart = true
            for (targets, restart) in [(targets, false), (restarted, true)] {
                let read = try await Self.holds(targets, sentBy: own, gw.database)
                let expected = Dictionary(
                    uniqueKeysWithValues: channels.map { ($0.id, Self.expectedHold($0, restart: restart)) })
                #expect(read.count == channels.count)
                for (channel, hold) in read {
                    #expect(hold == expected[channel], "restart \(restart): \(channels.first { $0.id == channel }!)")
                }
                // Each hold is met somewhere, or the comparison would not say much of it.
                let met = Set(read.map(\.1))
                let all: Set<TargetHold> =
                    restart
                    ? [.none, .suspectToken, .startBudget]
                    : [.none, .alreadyActive, .suspectToken, .startBudget]
                #expect(met == all)
                // Suspect tokens registered within the hour (read from the chunk's aggregate) and before it (probed).
                let suspects = read.filter { $0.1 == .suspectToken }.compactMap { r in channels.first { $0.id == r.0 } }
                #expect(Set(suspects.map { $0.registered < -60 }) == [true, false])
            }
        }
    }

    /// The channel's registration, live activity and attempts, times from the database's `now()`.
    static func write(_ c: Channel, appID: Int64, own: UUID, _ database: Database) async throws {
        _ = try await database.scalar(
            """
            UPDATE push_to_start_tokens SET registered_again_at = now() + \(Int32(c.registered)) * interval '1 minute'
            WHERE channel_id = \(c.id) RETURNING 1
            """, as: Int32.self)
        if let started = c.liveStarted {
            _ = try await database.scalar(
                """
                INSERT INTO live_activities (app_id, channel_id, name, attributes_type, system_activity_id, push_token,
                                             environment, started_at)
                VALUES (\(appID), \(c.id), 'match', 'MatchAttributes', \(c.id.uuidString), \(hexToken(7)),
                        'development', now() - \(Int32(started)) * interval '1 minute')
                RETURNING 1
                """, as: Int32.self)
        }
        for a in c.attempts {
            let push = a.own ? own : UUID()
            let token = a.ownToken ? c.token : hexToken(9)
            _ = try await database.scalar(
                """
                INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token, accepted_at,
                                            window_until, outcome, push_created_at)
                VALUES (\(push), \(appID), \(c.id), \(a.name), 'MatchAttributes', \(token),
                        now() + \(Int32(a.accepted)) * interval '1 minute',
                        now() + \(Int32(a.windowUntil)) * interval '1 minute',
                        \(a.pending ? "pending" : "started"), now() + \(Int32(a.accepted - 1)) * interval '1 minute')
                RETURNING 1
                """, as: Int32.self)
        }
    }

    /// Every target's hold, read in chunks of 7 as a batch reads them.
    static func holds(_ targets: PushTargets, sentBy own: UUID, _ database: Database) async throws
        -> [(UUID, TargetHold)]
    {
        var read: [(UUID, TargetHold)] = []
        while true {
            let chunk = try await targets.chunk(
                after: read.last?.0, upTo: nil, limit: 7, sentBy: (own, PushOrder(timestamp: 1_700_000_000, seq: 1)),
                on: database.client, logger: database.logger
            ).targets
            read += chunk.map { ($0.channelID, $0.hold) }
            if chunk.count < 7 { return read }
        }
    }
}
