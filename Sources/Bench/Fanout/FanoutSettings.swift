/// The fan-out bench's knobs, read once from the environment.
struct FanoutSettings: Sendable {
    let n: Int
    let workers: Int
    let simLatencyMS: Int
    let simMaxStreams: Int
    let otherActivities: Int
    let startEvent: Bool
    let secondPush: Bool
    let workerPoolSize: String
    let workerConcurrency: String
    let sharedBuffers: String
    /// PG_MAX_WAL_SIZE: WAL between checkpoints, PostgreSQL's 1 GB by default. At 1 GB a million-token start ran
    /// beside a checkpoint that WAL began 1.3 s into the push; at 4 GB beside none, and in one sitting the start ran
    /// faster and the update slower (docs/benchmarks.md, 2026-11-28).
    let maxWALSize: String
    let bulkNice: String
    /// CONTRACTS=1: both apps have a contract for MatchAttributes and every device reported version 1, so every
    /// push is checked at the door (docs/contracts.md).
    let contracts: Bool
    /// REPLICA=1: a streaming standby of the bench's PostgreSQL, its lag sampled through the fan-out.
    let replica: Bool
    /// CITUS_URL: a Citus coordinator's database instead of a private PostgreSQL (`ExternalCitus`).
    let citusURL: String?

    init(_ knobs: Knobs) throws {
        self.n = try knobs.int("N", 1_000_000)
        self.workers = try knobs.int("WORKERS", 2)
        self.simLatencyMS = try knobs.int("SIM_LATENCY_MS", 30)
        self.simMaxStreams = try knobs.int("SIM_MAX_STREAMS", 500)
        self.otherActivities = try knobs.int("OTHER_ACTIVITIES", 1)
        self.startEvent = knobs.string("EVENT", "update") == "start"
        self.secondPush = knobs.string("SECOND_PUSH", "1") == "1"
        self.workerPoolSize = knobs.string("WORKER_POOL_SIZE", "4")
        self.workerConcurrency = knobs.string("WORKER_CONCURRENCY", "16")
        self.sharedBuffers = knobs.string("PG_SHARED_BUFFERS", "2GB")
        self.maxWALSize = knobs.string("PG_MAX_WAL_SIZE", "1GB")
        self.bulkNice = knobs.string("WORKER_BULK_NICE", "default")
        self.contracts = knobs.string("CONTRACTS", "0") == "1"
        self.replica = knobs.string("REPLICA", "0") == "1"
        self.citusURL = knobs.optional("CITUS_URL")
    }

    var event: String { self.startEvent ? "start" : "update" }

    /// The contract of the bench's pushes (CONTRACTS=1): what `bigBody` and `PushBody.update` (`{"n": ts}`) send.
    static let contract = """
        {"content_state":{"type":"object","properties":{"home":{"type":"integer"},"away":{"type":"integer"},
          "minute":{"type":"integer"},"n":{"type":"integer"}}},
         "attributes":{"type":"object","required":["home"],"properties":{"home":{"type":"string"}}}}
        """

    /// The big app's push: an update of 'match' to every activity, or a push-to-start to every token.
    func bigBody(minute: Int = 67) -> PushBody {
        if self.startEvent {
            return PushBody(
                .init(
                    event: "start", name: "match", attributesType: "MatchAttributes", attributes: ["home": "A"],
                    contentState: ["home": 0, "away": 0], alert: .init(title: "Kick-off", body: "A v B")))
        }
        return PushBody(.init(event: "update", name: "match", contentState: ["home": 1, "away": 0, "minute": minute]))
    }
}
