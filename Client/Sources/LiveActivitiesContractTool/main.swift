import Foundation
import LiveActivitiesContracts

// `live-activities-contract`: an app's CI uploads the contract its unit tests made. Exit status: 0 uploaded, 1 the
// gateway refused it or could not be reached, 64 (EX_USAGE) a bad command line or document.

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print(ContractUploadCommand.usage)
    exit(arguments.isEmpty ? 64 : 0)
}
do {
    let command = try ContractUploadCommand(arguments: arguments, environment: ProcessInfo.processInfo.environment)
    try await command.run()
    print("uploaded contract \(command.attributesType) v\(command.version) to \(command.gateway.absoluteString)")
} catch let error as ContractUsageError {
    fail("error: \(error)\n\n\(ContractUploadCommand.usage)", status: 64)
} catch let error as ContractUploadError {
    fail("the gateway refused the contract: \(error)", status: 1)
} catch {
    fail("upload failed: \(error)", status: 1)
}
