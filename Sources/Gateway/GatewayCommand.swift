import ArgumentParser
import Foundation
import LiveActivitiesCore
import Logging
import PostgresStore

@main
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "The Live Activities push gateway's HTTP API.",
        subcommands: [Serve.self, Migrate.self],
        defaultSubcommand: Serve.self
    )
}

struct GatewayOptions: ParsableArguments {
    @Option(help: "Listen address (GATEWAY_HOST, default 127.0.0.1).") var host: String?
    @Option(help: "Listen port (GATEWAY_PORT, default 8080; 0 picks a free port).") var port: String?
    @Option(name: .customLong("database-url"), help: "postgres:// URL (DATABASE_URL).") var databaseURL: String?
    @Option(name: .customLong("database-pool-size"), help: "Database connections (DATABASE_POOL_SIZE, default 20).")
    var databasePoolSize: String?
    @Option(
        name: .customLong("event-loop-threads"),
        help: "Threads serving HTTP and PostgreSQL (GATEWAY_EVENT_LOOP_THREADS, default: the cores).")
    var eventLoopThreads: String?
    @Option(name: .customLong("admin-token"), help: "Bearer token of the operator API (ADMIN_TOKEN).") var adminToken:
        String?
    @Option(name: .customLong("master-key"), help: "Base64 AES-256 key sealing APNs keys (MASTER_KEY).") var masterKey:
        String?
    @Option(name: .customLong("log-level"), help: "trace|debug|info|notice|warning|error|critical (LOG_LEVEL).")
    var logLevel: String?
    @Option(name: .customLong("max-body-bytes"), help: "Largest request body (MAX_BODY_BYTES, default 65536).")
    var maxBodyBytes: String?
    @Option(
        name: .customLong("apns-manage-endpoint"),
        help: "https://host:port of Apple's broadcast channel management, e.g. the simulator (APNS_MANAGE_ENDPOINT).")
    var apnsManageEndpoint: String?
    @Option(name: .customLong("apns-ca-file"), help: "PEM roots to trust there (APNS_CA_FILE).") var apnsCAFile: String?
}

extension GatewayCommand {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Serve the HTTP API (the default).")
        @OptionGroup var options: GatewayOptions

        func run() async throws {
            let configuration = try exitOnConfigError {
                try GatewayConfiguration(options: self.options, environment: ProcessInfo.processInfo.environment)
            }
            LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: configuration.logLevel) }
            // The group's own bound (graceful, then 5 s of cancelling), and a second more.
            ShutdownWatchdog.arm(deadline: .seconds(configuration.shutdownSeconds + 6), program: "gateway")
            let gateway = try await buildGateway(configuration: configuration)
            try await exitOnFailure { try await gateway.run() }
        }
    }

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply the numbered migrations in sql/, then the views of sql/views/ (idempotent).")
        @Option(name: .customLong("database-url"), help: "postgres:// URL (DATABASE_URL).") var databaseURL: String?
        @Option(
            name: .customLong("migrations"), help: "Directory of NNNN_name.sql files (MIGRATIONS_DIR, default sql).")
        var migrations: String?

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let resolve = SettingsResolver(environment: environment)
            let (url, directory) = try exitOnConfigError {
                (
                    try resolve.databaseURL(CommonSettings.databaseURL, flag: self.databaseURL),
                    resolve.value(CommonSettings.migrationsDirectory, flag: self.migrations) ?? "sql"
                )
            }
            try await exitOnFailure {
                let files = try MigrationFiles.load(directory: directory)
                let applied = try await Migrator.migrate(files, url: url, logger: Logger(label: "gateway.migrate"))
                print(
                    applied.isEmpty
                        ? "schema is current at version \(files.count)"
                        : "applied migrations \(applied.map(String.init).joined(separator: ", ")); schema at version \(files.count)"
                )
            }
        }
    }
}

/// One line naming the bad setting, then exit 2.
func exitOnConfigError<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as ConfigError {
        FileHandle.standardError.write(Data("\(error.description)\n".utf8))
        throw ExitCode(2)
    }
}

/// Known startup failures (schema, migrations) print one clear line instead of a stack of wrappers.
func exitOnFailure(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as MigrationError {
        FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
        throw ExitCode(1)
    }
}
