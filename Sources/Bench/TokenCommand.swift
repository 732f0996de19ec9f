import APNsCommon
import APNsTransport
import ArgumentParser
import Foundation

/// Prints a provider token for a `.p8`, so that h2load can send requests the simulator accepts.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Print an ES256 provider token.")

    @Option(name: .customLong("key-file"), help: "The .p8 (P-256 private key, PEM).") var keyFile: String
    @Option(name: .customLong("team-id")) var teamID: String = "TEAM123456"
    @Option(name: .customLong("key-id")) var keyID: String = "KEY1234567"

    func run() throws {
        let key = try APNsSigningKey(pem: String(contentsOfFile: self.keyFile, encoding: .utf8))
        print(
            try ProviderTokenMinter.mint(teamID: self.teamID, keyID: self.keyID, key: key.privateKey, issuedAt: Date()))
    }
}
