import ArgumentParser
import Delivery
import Foundation
import LiveActivitiesCore
import Logging
import PostgresStore

@main
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Claims jobs from PostgreSQL and delivers pushes to APNs."
    )

    @Option(name: .customLong("database-url"), help: "postgres:// URL (DATABASE_URL).") var databaseURL: String?
    @Option(name: .customLong("database-pool-size"), help: "Database connections (DATABASE_POOL_SIZE, default 4).")
    var databasePoolSize: String?
    @Option(name: .customLong("master-key"), help: "Base64 AES-256 key sealing APNs keys (MASTER_KEY).") var masterKey:
        String?
    @Option(name: .customLong("log-level"), help: "trace|debug|info|notice|warning|error|critical (LOG_LEVEL).")
    var logLevel: String?
    @Option(help: "Jobs run at once (WORKER_CONCURRENCY, default 16).") var concurrency: String?
    @Option(
        name: .customLong("lease-seconds"),
        help: "Job lease, kept alive while running (WORKER_LEASE_SECONDS, default 30).")
    var leaseSeconds: String?
    @Option(name: .customLong("worker-id"), help: "Lease owner name (WORKER_ID, default random).") var workerID: String?
    @Option(help: "Address of /healthz and /metrics (WORKER_HOST, default 127.0.0.1).") var host: String?
    @Option(help: "Port of /healthz and /metrics (WORKER_PORT, default 9090).") var port: String?
    @Option(
        name: .customLong("apns-endpoint"), help: "Send to this https://host:port instead of Apple (APNS_ENDPOINT).")
    var apnsEndpoint: String?
    @Option(name: .customLong("apns-ca-file"), help: "PEM roots to trust for APNS_ENDPOINT (APNS_CA_FILE).")
    var apnsCAFile: String?
    @Option(
        name: .customLong("apns-manage-endpoint"),
        help: "https://host:port of Apple's broadcast channel management (APNS_MANAGE_ENDPOINT).")
    var apnsManageEndpoint: String?
    @Option(
        name: .customLong("apns-broadcast-endpoint"),
        help: "https://host:port for broadcast sends instead of Apple's regular host (APNS_BROADCAST_ENDPOINT).")
    var apnsBroadcastEndpoint: String?
    @Option(name: .customLong("apns-connections"), help: "Connections per APNs pool (APNS_CONNECTIONS, default 8).")
    var apnsConnections: String?
    @Option(
        name: .customLong("apns-max-streams"),
        help:
            "Ceiling on streams in flight per APNs connection (APNS_MAX_STREAMS, default 1000; the peer's limit governs below it)."
    )
    var apnsMaxStreams: String?
    @Option(
        name: .customLong("apns-request-timeout-seconds"),
        help:
            "Seconds an APNs request may go unanswered before it fails and is retried (APNS_REQUEST_TIMEOUT_SECONDS, default 10)."
    )
    var apnsRequestTimeoutSeconds: String?
    @Option(
        name: .customLong("push-batch-size"), help: "Targets per fan-out batch job (PUSH_BATCH_SIZE, default 10000).")
    var pushBatchSize: String?
    @Option(
        name: .customLong("push-chunk-size"), help: "Targets sent and recorded at once (PUSH_CHUNK_SIZE, default 3000)."
    )
    var pushChunkSize: String?
    @Option(
        name: .customLong("bulk-nice"),
        help: "Nice levels the fan-out's threads run below single updates' (WORKER_BULK_NICE, default 5; 0 to 19)."
    )
    var bulkNice: String?

    func run() async throws {
        let configuration: WorkerConfiguration
        do {
            configuration = try WorkerConfiguration(options: self, environment: ProcessInfo.processInfo.environment)
        } catch let error as ConfigError {
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            throw ExitCode(2)
        }
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: configuration.logLevel) }
        // The group's own bound (graceful, then 5 s of cancelling), and a second more.
        ShutdownWatchdog.arm(deadline: .seconds(configuration.shutdownSeconds + 6), program: "worker")
        do {
            try await buildWorker(configuration: configuration).run()
        } catch let error as MigrationError {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            throw ExitCode(1)
        } catch let error as ConfigError {
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            throw ExitCode(2)
        }
    }
}
