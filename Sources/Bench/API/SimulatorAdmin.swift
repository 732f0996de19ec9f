import Crypto
import Foundation

/// The APNs simulator's admin API: knobs, trusted keys, counts and recordings.
struct SimulatorAdmin: Sendable {
    let http: BenchHTTP
    let base: String

    /// `POST /config`: only the knobs set are sent.
    struct Config: Encodable, Sendable {
        var record: Bool?
        var countTokens: Bool?
        var recordTokens: [String]?
        var latencyMS: Int?
        var maxConcurrentStreams: Int?
        var stall: Bool?
        var goawayAfterStreams: Int?
        var failureRates: [String: Double]?
        enum CodingKeys: String, CodingKey {
            case record, stall
            case countTokens = "count_tokens"
            case recordTokens = "record_tokens"
            case latencyMS = "latency_ms"
            case maxConcurrentStreams = "max_concurrent_streams"
            case goawayAfterStreams = "goaway_after_streams"
            case failureRates = "failure_rates"
        }
    }

    struct Key: Encodable, Sendable {
        var teamID = "TEAM123456"
        var keyID = "KEY1234567"
        var publicKey: String
        enum CodingKeys: String, CodingKey {
            case teamID = "team_id"
            case keyID = "key_id"
            case publicKey = "public_key"
        }
    }

    struct Stats: Decodable, Sendable {
        var accepted: Int
        var connectionsTotal: Int
        var maxStreamsInFlight: Int
        var tokens: [String: Int]?
        enum CodingKeys: String, CodingKey {
            case accepted, tokens
            case connectionsTotal = "connections_total"
            case maxStreamsInFlight = "max_streams_in_flight"
        }
    }

    struct Empty: Encodable, Sendable {}

    func configure(_ config: Config) async throws {
        _ = try await self.http.post(self.base + "/config", config)
    }

    func trust(_ key: P256.Signing.PrivateKey) async throws {
        _ = try await self.http.post(self.base + "/keys", Key(publicKey: key.publicKey.pemRepresentation))
    }

    func reset() async throws { _ = try await self.http.post(self.base + "/reset", Empty()) }

    /// `GET /stats` as the simulator wrote it (the fan-out bench prints it whole).
    func statsText() async throws -> String { try await self.http.get(self.base + "/stats").text }

    func stats(tokens: Bool = false) async throws -> Stats {
        try await self.http.get(self.base + "/stats" + (tokens ? "?tokens=all" : "")).decode(Stats.self)
    }

    /// The notifications recorded for `token` (JSON text: the bench hands it to PostgreSQL).
    func notifications(token: String) async throws -> String {
        try await self.http.get(self.base + "/notifications?token=" + token).text
    }

    /// The broadcast requests recorded for a channel (JSON text).
    func broadcasts(channel: String) async throws -> String {
        let query = channel.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? channel
        return try await self.http.get(self.base + "/broadcasts?channel_id=" + query).text
    }
}
