import ArgumentParser
import Crypto
import Foundation

/// `bench registry` (`make bench-registry`): the device API under load, on a release build. CHANNELS channels
/// (100,000); wrk PUTs live-activity tracking calls (starts, then rotations) at a paced rate, each for a random
/// channel. Prints the rate reached and wrk's latency distribution.
struct RegistryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registry",
        abstract: "Device registrations under load: wrk against a gateway (make bench-registry).",
        discussion: """
            Environment: CHANNELS (100000); RATE (5400: wrk paces each connection with delay(), a closed loop, so \
            the rate reached is about RATE / (1 + latency x RATE / CONNECTIONS): with 128 connections the loop \
            loses 1-5% and 5,400 reaches the target of 5,000); PACING (poisson: each wait drawn from an exponential \
            distribution, so connections' calls arrive independently, as devices' do; fixed: the mean every time, \
            and bursts of up to CONNECTIONS calls recur after any stall); CONNECTIONS (128); DURATION (30s); \
            WRK_THREADS (2); PENDING_STARTS (10: push-to-start confirmations pending to every channel, one under \
            the tracked name); DATABASE_POOL_SIZE (4 per core); GATEWAY_EVENT_LOOP_THREADS (1); KEEP_LOG (copy the \
            gateway's log there); BIN_DIR (a gateway built elsewhere); MIGRATIONS_DIR.
            """
    )

    func run() async throws {
        let knobs = Knobs()
        let repository = try Repository.find()
        let bin = try await repository.binaries(knobs, products: ["gateway"])
        let stack = try BenchStack(name: "bench-registry", repository: repository, knobs: knobs, bin: bin)
        let channels = try knobs.int("CHANNELS", 100_000)
        let rate = try knobs.int("RATE", 5400)
        let connections = try knobs.int("CONNECTIONS", 128)
        let pendingStarts = try knobs.int("PENDING_STARTS", 10)
        try await stack.run {
            let pgPort = try await repository.freePort()
            let gwPort = try await repository.freePort()
            try await repository.pg(["start", stack.pgData, "\(pgPort)"] + stack.durability.arguments)
            // Four connections per core: on 2 cores, 8 gave p99 29 ms where 16 gave 41 ms (the same throughput,
            // fewer backends contending for the CPUs); 4 lost throughput. One event loop thread serves 5,000
            // requests/s in about half a core and leaves the rest to PostgreSQL (p99 3.1-3.9 ms against 4.2-4.4 ms
            // with a thread per core).
            stack.export([
                "DATABASE_URL": "postgres://postgres@127.0.0.1:\(pgPort)/postgres",
                "DATABASE_POOL_SIZE": knobs.string(
                    "DATABASE_POOL_SIZE", "\(4 * ProcessInfo.processInfo.activeProcessorCount)"),
                "GATEWAY_EVENT_LOOP_THREADS": knobs.string("GATEWAY_EVENT_LOOP_THREADS", "1"),
            ])
            try await stack.migrate()
            print(stack.durability.header)
            let gatewayLog = stack.work + "/gateway.log"
            let gatewayProcess = try stack.start("gateway", ["serve"], ["GATEWAY_PORT": "\(gwPort)"], log: gatewayLog)
            let gateway = GatewayAPI(http: stack.http, base: "http://127.0.0.1:\(gwPort)", adminToken: stack.adminToken)
            await Poll.until(tries: 50, every: .milliseconds(200)) {
                await stack.http.answers(gateway.base + "/readyz")
            }
            let app = try await gateway.createApp(
                "Bench", bundleID: "com.example.bench", key: P256.Signing.PrivateKey())
            let db = BenchDatabase(host: "127.0.0.1", port: pgPort)
            do {
                try await Self.seed(db, channels: channels, pendingStarts: pendingStarts)
                let channelsFile = stack.work + "/channels.txt"
                let ids = try await db.rows("SELECT id FROM channels ORDER BY substr(install_id, 7)::int")
                try (ids.joined(separator: "\n") + "\n").write(toFile: channelsFile, atomically: true, encoding: .utf8)
                try await db.run("ANALYZE")
                let run = RegistryLoad(
                    knobs: knobs, stack: stack, db: db, gatewayProcess: gatewayProcess, gatewayBase: gateway.base,
                    rate: rate, connections: connections)
                try await run.run(channelsFile: channelsFile, auth: Data(app.device.utf8).base64EncodedString())
                if knobs.optional("CEILINGS") == "1" {
                    try await RegistryCeilings(
                        knobs: knobs, stack: stack, gatewayProcess: gatewayProcess, gatewayBase: gateway.base,
                        pgPort: pgPort, connections: connections, channels: channels
                    ).run()
                }
            } catch {
                await db.close()
                throw error
            }
            await db.close()
            if let keep = knobs.optional("KEEP_LOG") {
                try? FileManager.default.copyItem(atPath: gatewayLog, toPath: keep)
            }
        }
    }

    /// Each channel has its secret ('secret-<n>' here), which every call presents (X-Channel-Secret): the track
    /// statement checks it. Half the channels already track an activity under the name (their calls are
    /// rotations), half do not (their first call starts one).
    static func seed(_ db: BenchDatabase, channels: Int, pendingStarts: Int) async throws {
        print("== \(channels) channels")
        try await db.run(
            """
            INSERT INTO channels (app_id, install_id, secret_hash)
                SELECT id, 'bench-' || g, sha256(convert_to('secret-' || g, 'UTF8')) FROM apps, generate_series(1, \(channels)) g
            """,
            """
            INSERT INTO live_activities (app_id, channel_id, name, attributes_type, push_token,
                system_activity_id, environment) SELECT c.app_id, c.id, 'match', 'MatchAttributes', md5(c.install_id) || md5(c.id::text),
                'act-' || substr(c.install_id, 7), 'development' FROM channels c WHERE substr(c.install_id, 7)::int % 2 = 0
            """)
        guard pendingStarts > 0 else { return }
        print("== \(pendingStarts) start pushes to every channel, each start pending confirmation for an hour")
        try await db.run(
            "INSERT INTO push_operations (app_id, response) SELECT id, '{}' FROM apps",
            """
            INSERT INTO pushes (app_id, operation_id, event, activity_name, attributes_type, audience, request, apns_payload,
                                apns_timestamp, apns_priority, state)
            SELECT o.app_id, o.id, 'start', CASE WHEN g = 1 THEN 'match' ELSE 'other-' || g END, 'MatchAttributes', '"all"', '{}',
                   '\\x00', 1700000000, 10, 'done'
            FROM push_operations o, generate_series(1, \(pendingStarts)) g
            """,
            """
            INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token, window_until, push_created_at)
            SELECT p.id, p.app_id, c.id, p.activity_name, 'MatchAttributes', md5(c.id::text) || md5(p.id::text), now() + interval '1 hour', p.created_at
            FROM pushes p JOIN channels c ON c.app_id = p.app_id
            """)
    }
}
