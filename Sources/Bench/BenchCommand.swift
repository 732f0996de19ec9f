import APNsTransport
import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOSSL
import Simulator

@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks: the APNs client and simulator, the fan-out, the registry, retention, chaos.",
        subcommands: [
            APNsBench.self, TokenCommand.self, FanoutBench.self, RegistryBench.self, ChaosBench.self,
            RetentionBench.self,
        ]
    )
}
