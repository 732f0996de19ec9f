import APNsCommon
import APNsTransport
import ArgumentParser
import Crypto
import Foundation
import LiveActivitiesCore
import Logging
import NIOCore
import NIOSSL
import Simulator

/// Sends N notifications from one process to a server on loopback and prints rate, latency and CPU.
struct APNsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns",
        abstract: "Send N notifications with the APNs client: to an in-process simulator, or to --url (e.g. nghttpd)."
    )

    @Option(help: "Notifications to send.") var count: Int = 200_000
    @Option(help: "Connections in the pool.") var connections: Int = 4
    @Option(help: "Streams per connection (our cap).") var streams: Int = 100
    @Option(help: "Requests per send() call.") var batch: Int = 4000
    @Option(help: "Concurrent send() calls.") var callers: Int = 4
    @Option(help: "Send to this https://host:port instead of an in-process simulator (it must accept any JWT).")
    var url: String?
    @Option(name: .customLong("ca-file"), help: "PEM certificate to trust for --url.") var caFile: String?
    @Option(
        name: .customLong("sim-config"), help: "JSON knobs for the in-process simulator, e.g. '{\"latency_ms\":5}'.")
    var simConfig: String?
    @Flag(help: "Debug logging.") var verbose = false

    func run() async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = self.verbose ? .trace : .warning
        let key = P256.Signing.PrivateKey()
        let credentials = APNsCredentials(
            teamID: "TEAM123456", keyID: "KEY1234567", environment: .development,
            signingKey: APNsSigningKey(privateKey: key))
        var configuration = APNsClientConfiguration()
        configuration.connectionsPerPool = self.connections
        configuration.maxConcurrentStreams = self.streams
        configuration.window = self.batch
        configuration.requestTimeout = .seconds(60)

        var simulator: RunningSimulator?
        if let url = self.url {
            guard let endpoint = APNsEndpoint(url: url) else {
                throw ValidationError("--url must be https://host:port")
            }
            configuration.endpointOverride = endpoint
            if let caFile = self.caFile {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            }
        } else {
            let sim = try await RunningSimulator.start(logger: logger)
            sim.state.addKey(
                TrustedKey(
                    teamID: credentials.teamID, keyID: credentials.keyID, publicKey: key.publicKey, bundleIDs: nil))
            try sim.state.updateKnobs(["record": false, "max_concurrent_streams": self.streams])
            if let knobs = self.simConfig,
                let json = try JSONSerialization.jsonObject(with: Data(knobs.utf8)) as? [String: Any]
            {
                try sim.state.updateKnobs(json)
            }
            configuration.endpointOverride = APNsEndpoint(host: "127.0.0.1", port: sim.apnsPort)
            configuration.trustRoots = sim.trustRoots
            simulator = sim
        }
        let client = try APNsClient(configuration: configuration, logger: logger)
        let body = ByteBuffer(string: Self.payload)
        let topic = "com.example.game.push-type.liveactivity"
        let tokens = (0..<min(self.count, 100_000)).map { n in
            String(repeating: "a", count: 56) + String(format: "%08x", n)
        }

        // Warm up: connections, TLS, authentication.
        _ = await client.send(
            (0..<min(2000, self.count)).map {
                APNsRequest(deviceToken: tokens[$0 % tokens.count], topic: topic, body: body)
            },
            credentials: credentials)
        if let simulator { simulator.state.reset() }

        let perCaller = self.count / self.callers
        let cpuBefore = Self.cpuSeconds()
        let started = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: ([Double], Int).self) { group in
            for caller in 0..<self.callers {
                group.addTask {
                    var latencies: [Double] = []
                    var accepted = 0
                    var sent = 0
                    while sent < perCaller {
                        let n = min(self.batch, perCaller - sent)
                        let requests = (0..<n).map {
                            APNsRequest(
                                deviceToken: tokens[(caller * perCaller + sent + $0) % tokens.count], topic: topic,
                                body: body)
                        }
                        let t0 = ContinuousClock.now
                        let results = await client.send(requests, credentials: credentials)
                        latencies.append(
                            (ContinuousClock.now - t0).seconds / Double(n) * Double(self.streams * self.connections))
                        accepted += results.filter { if case .success(.accepted) = $0 { true } else { false } }.count
                        if self.verbose {
                            var kinds: [String: Int] = [:]
                            for r in results { kinds["\(r)".prefix(45).description, default: 0] += 1 }
                            print("results: \(kinds)")
                        }
                        sent += n
                    }
                    return (latencies, accepted)
                }
            }
            var all: [Double] = []
            var accepted = 0
            for try await (l, a) in group {
                all += l
                accepted += a
            }
            return (all, accepted)
        }
        let elapsed = (ContinuousClock.now - started).seconds
        let cpu = Self.cpuSeconds() - cpuBefore
        let total = perCaller * self.callers
        var serverCount = "n/a"
        if let simulator {
            serverCount = "\(simulator.state.snapshot().accepted)"
            await simulator.stop()
        }
        await client.shutdown()
        if let simulator {
            print(
                "server: \(simulator.state.snapshot().rejected) rejected, max streams in flight \(simulator.state.snapshot().maxStreamsInFlight), connections \(simulator.state.snapshot().connectionsTotal)"
            )
        }
        print(
            String(
                format: "apns client: %d notifications in %.2f s = %.0f/s; accepted %d (server counted %@)",
                total, elapsed, Double(total) / elapsed, latencies.1, serverCount))
        print(
            String(
                format: "process CPU: %.2f s = %.2f us per notification (client%@)", cpu, cpu / Double(total) * 1e6,
                simulator == nil ? " only" : " + in-process simulator"))
        _ = latencies.0
    }

    static let payload =
        #"{"aps":{"timestamp":1790000000,"event":"update","content-state":{"home":2,"away":1,"minute":67,"status":"live","last_event":"Goal by #9"},"stale-date":1790003600,"relevance-score":75}}"#

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
