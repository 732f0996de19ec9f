import ArgumentParser
import Logging
import ServiceLifecycle
import Simulator

@main
struct SimulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-sim",
        abstract: "A local APNs: HTTP/2 over TLS with APNs' checks and answers, plus an admin API. Dev and test only."
    )

    @Option(help: "Address of the APNs endpoint.") var host: String = "127.0.0.1"
    @Option(help: "TLS port of the APNs endpoint (0 picks one).") var port: Int = 2197
    @Option(name: .customLong("admin-port"), help: "Plain-HTTP port of the admin API.") var adminPort: Int = 9797
    @Option(
        name: .customLong("broadcast-port"),
        help: "TLS port of Apple's broadcast API: channel management and broadcast sends (0 picks one).")
    var broadcastPort: Int = 2195
    @Option(
        name: .customLong("certificate-out"), help: "Write the generated certificate (PEM) here for clients to trust.")
    var certificateOut: String?
    @Option(name: .customLong("log-level")) var logLevel: String = "info"

    func run() async throws {
        var logger = Logger(label: "apns-sim")
        logger.logLevel = Logger.Level(rawValue: self.logLevel) ?? .info
        let service = SimulatorService(
            host: self.host, port: self.port, adminPort: self.adminPort, broadcastPort: self.broadcastPort,
            certificateOut: self.certificateOut, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: service)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
