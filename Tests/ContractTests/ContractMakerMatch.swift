import Foundation

/// A realistic attributes type for the maker's tests: every kind of field an app's content state has.
struct ContractMakerMatch: Codable {
    struct ContentState: Codable, Hashable {
        var homeScore: UInt8
        var awayScore: Int16
        var phase: Phase
        var period: Period
        /// Absent before kick-off.
        var minute: Int?
        var kickoff: Date
        var lastGoal: Goal?
        var goals: [Goal]
        var possession: Float
        var shotsPerPeriod: [Int?]
        var odds: [String: Double]
        var flags: Set<String>
        var note: String?
        var attendance: UInt
        var ratio: Decimal
        var crest: Data?
        var sequence: UInt64
        var offset: Int64
        var delta: Int32
        var counter: UInt32
        var tilt: Int8
        var expected: Double
        var isLive: Bool
        var followers: Int
        var rounds: [[UInt16]]

        enum CodingKeys: String, CodingKey {
            case homeScore = "home_score"
            case awayScore = "away_score"
            case phase, period, minute, kickoff
            case lastGoal = "last_goal"
            case goals, possession
            case shotsPerPeriod = "shots_per_period"
            case odds, flags, note
            case attendance, ratio, crest, sequence, offset, delta, counter, tilt, expected
            case isLive = "is_live"
            case followers, rounds
        }
    }

    enum Phase: String, Codable, CaseIterable, Hashable {
        case pregame
        case live = "in_play"
        case final
    }
    enum Period: Int, Codable, CaseIterable, Hashable {
        case first = 1
        case second = 2
        case extra = 3
    }

    struct Goal: Codable, Hashable {
        var player: String
        var minute: Int
        var ownGoal: Bool?
    }

    struct Team: Codable {
        var name: String
        var crest: URL?
    }

    var matchID: UUID
    var home: Team
    var away: Team
    var venue: URL
    var labels: [String: [String]]
    var kickoff: Date
}
