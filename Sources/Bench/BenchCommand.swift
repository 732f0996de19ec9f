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
        abstract: "Benchmarks of the APNs client and simulator.",
        subcommands: [APNsBench.self, TokenCommand.self]
    )
}
