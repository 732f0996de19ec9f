import APNsTransport
import Crypto
import Foundation
import LiveActivitiesCore
import Synchronization

/// The simulator's knobs (`POST /config`); keys left out of a request keep their value.
struct SimulatorKnobs: Codable, Sendable {
    var maxConcurrentStreams: Int = 1000
    var latencyMs: Int = 0
    var failureRates: [String: Double] = [:]
    var unregisteredTokens: Set<String> = []
    /// After this many streams on a connection, send GOAWAY and close it (0: never).
    var goawayAfterStreams: Int = 0
    /// Close each connection at once, without GOAWAY, when it has seen this many streams (0: never): a network drop
    /// or a crash, which leaves the client not knowing what was processed.
    var dropAfterStreams: Int = 0
    /// Accept requests and never answer them.
    var stall: Bool = false
    /// Keep every accepted notification for `GET /notifications`.
    var record: Bool = true
    /// Tokens whose notifications are kept even with `record` off: a benchmark times a few among a million.
    var recordTokens: Set<String> = []
    /// Count accepted and rejected notifications per device token (`GET /stats?token=`, `?tokens=all`). A
    /// million-token benchmark turns it off: the table's hashing and growth were a fifth of the simulator's CPU.
    var countTokens: Bool = true
    /// Keep HTTP/2's initial 64 KiB connection window (new connections) instead of raising it to 1 GiB: clients
    /// must then hold request bodies back until the credit returns, as with a server that grants little.
    var smallWindow: Bool = false
    /// Apple: at most 10,000 broadcast channels per app and environment (`CannotCreateChannelConfig` past it).
    var maxChannels: Int = 10_000
    /// Bundles listed `false` answer `FeatureNotEnabled` to broadcast and channel requests; unlisted ones may.
    var broadcastEnabled: [String: Bool] = [:]

    enum CodingKeys: String, CodingKey {
        case maxConcurrentStreams = "max_concurrent_streams"
        case latencyMs = "latency_ms"
        case failureRates = "failure_rates"
        case unregisteredTokens = "unregistered_tokens"
        case goawayAfterStreams = "goaway_after_streams"
        case dropAfterStreams = "drop_after_streams"
        case smallWindow = "small_window"
        case countTokens = "count_tokens"
        case recordTokens = "record_tokens"
        case maxChannels = "max_channels"
        case broadcastEnabled = "broadcast_enabled"
        case stall, record
    }

    init() {}

    /// Applies a partial update: only the keys present change.
    mutating func apply(_ json: [String: Any]) throws {
        if let v = json["max_concurrent_streams"] {
            self.maxConcurrentStreams = try Self.int(v, "max_concurrent_streams", min: 1)
        }
        if let v = json["max_channels"] { self.maxChannels = try Self.int(v, "max_channels", min: 0) }
        if let v = json["broadcast_enabled"] {
            guard let map = v as? [String: Bool] else {
                throw KnobError("broadcast_enabled must map bundle ids to booleans")
            }
            self.broadcastEnabled.merge(map) { $1 }
        }
        if let v = json["latency_ms"] { self.latencyMs = try Self.int(v, "latency_ms", min: 0) }
        if let v = json["goaway_after_streams"] {
            self.goawayAfterStreams = try Self.int(v, "goaway_after_streams", min: 0)
        }
        if let v = json["drop_after_streams"] {
            self.dropAfterStreams = try Self.int(v, "drop_after_streams", min: 0)
        }
        if let v = json["stall"] {
            guard let b = v as? Bool else { throw KnobError("stall must be a boolean") }
            self.stall = b
        }
        if let v = json["small_window"] {
            guard let b = v as? Bool else { throw KnobError("small_window must be a boolean") }
            self.smallWindow = b
        }
        if let v = json["record"] {
            guard let b = v as? Bool else { throw KnobError("record must be a boolean") }
            self.record = b
        }
        if let v = json["count_tokens"] {
            guard let b = v as? Bool else { throw KnobError("count_tokens must be a boolean") }
            self.countTokens = b
        }
        if let v = json["record_tokens"] {
            guard let tokens = v as? [String] else { throw KnobError("record_tokens must be a list of hex strings") }
            self.recordTokens = Set(tokens.map { $0.lowercased() })
        }
        if let v = json["unregistered_tokens"] {
            guard let tokens = v as? [String] else {
                throw KnobError("unregistered_tokens must be a list of hex strings")
            }
            self.unregisteredTokens = Set(tokens.map { $0.lowercased() })
        }
        if let v = json["failure_rates"] {
            guard let rates = v as? [String: Any] else { throw KnobError("failure_rates must be an object") }
            var parsed: [String: Double] = [:]
            for (reason, rate) in rates {
                guard let p = (rate as? NSNumber)?.doubleValue, (0...1).contains(p) else {
                    throw KnobError("failure_rates.\(reason) must be a number from 0 to 1")
                }
                parsed[reason] = p
            }
            self.failureRates = parsed
        }
        let known: Set<String> = Set(CodingKeys.allCases.map(\.rawValue))
        if let unknown = json.keys.first(where: { !known.contains($0) }) {
            throw KnobError("unknown setting \(unknown)")
        }
    }

    static func int(_ value: Any, _ name: String, min: Int) throws -> Int {
        guard let n = value as? Int, n >= min else { throw KnobError("\(name) must be a whole number >= \(min)") }
        return n
    }
}

extension SimulatorKnobs.CodingKeys: CaseIterable {}

public struct KnobError: Error {
    public let message: String
    init(_ message: String) { self.message = message }
}

/// A signing key the simulator trusts (`POST /keys`).
public struct TrustedKey: Sendable {
    public var teamID: String
    public var keyID: String
    public var publicKey: P256.Signing.PublicKey
    public var bundleIDs: Set<String>?

    public init(teamID: String, keyID: String, publicKey: P256.Signing.PublicKey, bundleIDs: Set<String>?) {
        self.teamID = teamID
        self.keyID = keyID
        self.publicKey = publicKey
        self.bundleIDs = bundleIDs
    }
}

public struct RecordedNotification: Sendable {
    public var headers: [String: String]
    public var body: Data
    public var receivedAt: Double
}

public struct TokenStats: Sendable {
    public var accepted = 0
    public var rejected: [String: Int] = [:]
}

/// Everything the simulator counts and remembers, behind one lock (held only for short, non-blocking updates).
public final class SimulatorState: Sendable {
    public struct Counters: Sendable {
        public var accepted = 0
        public var rejected: [String: Int] = [:]
        public var connections = 0
        public var connectionsTotal = 0
        public var maxStreamsInFlight = 0
        public var perToken: [String: TokenStats] = [:]
        public var recordings: [String: [RecordedNotification]] = [:]
        /// Broadcast requests accepted, and refused by reason.
        public var broadcasts = 0
        public var broadcastsRejected: [String: Int] = [:]
        /// Accepted broadcast requests per channel id, oldest first.
        public var broadcastRecordings: [String: [RecordedNotification]] = [:]
    }

    /// The broadcast channels Apple would know, per bundle id: channel id -> its storage policy and creation time.
    let channels = Mutex<[String: [String: BroadcastChannelRecord]]>([:])

    /// The contract each device's app build decodes with, by token (`POST /contracts`): its device model drops what
    /// would not decode (`LiveActivityDevice`).
    let contracts = Mutex<[String: AttributesContract]>([:])
    private let knobs = Mutex(SimulatorKnobs())
    private let keys = Mutex<[String: TrustedKey]>([:])
    private let counters = Mutex(Counters())
    /// Provider tokens already verified: token -> (key id, issued at). Verification is the expensive part.
    private let verifiedTokens = Mutex<[String: (keyID: String, issuedAt: Int)]>([:])

    var currentKnobs: SimulatorKnobs { self.knobs.withLock { $0 } }

    public func updateKnobs(_ json: [String: Any]) throws {
        try self.knobs.withLock { knobs in
            var copy = knobs
            try copy.apply(json)
            knobs = copy
        }
    }

    /// Raised by every `addKey`: connections drop the provider token they remember as verified.
    private let keysChanges = Atomic<Int>(0)
    var keysVersion: Int { self.keysChanges.load(ordering: .acquiring) }

    public func addKey(_ key: TrustedKey) {
        self.keys.withLock { $0[key.keyID] = key }
        self.verifiedTokens.withLock { $0.removeAll() }
        self.keysChanges.add(1, ordering: .releasing)
    }

    func key(id: String) -> TrustedKey? { self.keys.withLock { $0[id] } }

    func verified(token: String) -> (keyID: String, issuedAt: Int)? { self.verifiedTokens.withLock { $0[token] } }

    func rememberVerified(token: String, keyID: String, issuedAt: Int) {
        self.verifiedTokens.withLock { tokens in
            if tokens.count > 10_000 { tokens.removeAll() }
            tokens[token] = (keyID, issuedAt)
        }
    }

    func connectionOpened() {
        self.counters.withLock {
            $0.connections += 1
            $0.connectionsTotal += 1
        }
    }

    func connectionClosed() { self.counters.withLock { $0.connections -= 1 } }

    func streamsInFlight(_ n: Int) {
        self.counters.withLock { $0.maxStreamsInFlight = max($0.maxStreamsInFlight, n) }
    }

    func accepted(token: String, countToken: Bool, record: RecordedNotification?) {
        self.counters.withLock { c in
            c.accepted += 1
            if countToken { c.perToken[token, default: TokenStats()].accepted += 1 }
            if let record { c.recordings[token, default: []].append(record) }
        }
    }

    func rejected(token: String?, reason: String) {
        self.counters.withLock { c in
            c.rejected[reason, default: 0] += 1
            if let token { c.perToken[token, default: TokenStats()].rejected[reason, default: 0] += 1 }
        }
    }

    public func snapshot() -> Counters { self.counters.withLock { $0 } }

    public func reset() {
        self.counters.withLock { c in
            let open = c.connections
            c = Counters()
            c.connections = open
        }
    }
}

extension SimulatorState {
    func broadcastAccepted(channelID: String, record: RecordedNotification) {
        self.counters.withLock { c in
            c.broadcasts += 1
            c.broadcastRecordings[channelID, default: []].append(record)
        }
    }

    func broadcastRejected(reason: String) {
        self.counters.withLock { $0.broadcastsRejected[reason, default: 0] += 1 }
    }
}
