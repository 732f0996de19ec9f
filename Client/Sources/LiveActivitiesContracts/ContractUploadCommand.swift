import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `live-activities-contract upload <contract.json> --type <attributes_type> --version <n> --gateway <url>`, with the
/// app key and master secret from `LAGW_APP_KEY` and `LAGW_MASTER_SECRET` (not arguments: they would show in CI logs
/// and `ps`). Here rather than in the executable so that tests can run it.
public struct ContractUploadCommand: Sendable, Equatable {
    public static let usage = """
        usage: live-activities-contract upload <contract.json> --type <attributes_type> --version <n> --gateway <url>
          Uploads a contract (made by ActivityContract.make(...).jsonData() in the app's tests, or a JSON Schema
          document {"content_state": ..., "attributes": ...}) to PUT /api/attributes-types/<type>/contracts/<n>.
          Environment: LAGW_APP_KEY, LAGW_MASTER_SECRET (the app's key and master secret).
        """

    public var file: URL
    public var attributesType: String
    public var version: Int
    public var gateway: URL
    public var appKey: String
    public var masterSecret: String

    /// `arguments` without the program's name.
    public init(arguments: [String], environment: [String: String]) throws {
        guard arguments.first == "upload" else {
            throw ContractUsageError(arguments.first.map { "unknown command \"\($0)\"" } ?? "no command given")
        }
        var file: String?
        var options: [String: String] = [:]
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2))
                guard ["type", "version", "gateway"].contains(name) else {
                    throw ContractUsageError("unknown option \(argument)")
                }
                guard let value = rest.popFirst() else { throw ContractUsageError("\(argument) needs a value") }
                guard options[name] == nil else { throw ContractUsageError("\(argument) given twice") }
                options[name] = value
            } else {
                guard file == nil else { throw ContractUsageError("more than one file given: \(argument)") }
                file = argument
            }
        }
        guard let file else { throw ContractUsageError("no contract file given") }
        guard let type = options["type"], !type.isEmpty else { throw ContractUsageError("--type is required") }
        guard let versionText = options["version"] else { throw ContractUsageError("--version is required") }
        guard let version = Int(versionText), ContractUpload.versions.contains(version) else {
            throw ContractUsageError("--version must be an integer in 1...1000000, not \(versionText)")
        }
        guard let gatewayText = options["gateway"] else { throw ContractUsageError("--gateway is required") }
        guard let gateway = URL(string: gatewayText), ["http", "https"].contains(gateway.scheme ?? ""),
            gateway.host != nil
        else {
            throw ContractUsageError("--gateway must be an http or https URL, not \(gatewayText)")
        }
        guard let appKey = environment["LAGW_APP_KEY"], !appKey.isEmpty else {
            throw ContractUsageError("LAGW_APP_KEY is not set")
        }
        guard let masterSecret = environment["LAGW_MASTER_SECRET"], !masterSecret.isEmpty else {
            throw ContractUsageError("LAGW_MASTER_SECRET is not set")
        }
        self.file = URL(fileURLWithPath: file)
        self.attributesType = type
        self.version = version
        self.gateway = gateway
        self.appKey = appKey
        self.masterSecret = masterSecret
    }

    /// Reads and checks the document (a JSON object with both schemas), then uploads it. Throws `ContractUsageError`
    /// before sending anything, `ContractUploadError` with the gateway's answer.
    public func run(session: URLSession = .shared) async throws {
        let document: Data
        do {
            document = try Data(contentsOf: self.file)
        } catch {
            throw ContractUsageError("cannot read \(self.file.path): \(error.localizedDescription)")
        }
        let object = (try? JSONSerialization.jsonObject(with: document)) as? [String: Any]
        guard let object else { throw ContractUsageError("\(self.file.path) is not a JSON object") }
        for key in ["content_state", "attributes"] where !(object[key] is [String: Any]) {
            throw ContractUsageError("\(self.file.path) has no \"\(key)\" schema (an object)")
        }
        let upload = ContractUpload(
            gateway: self.gateway, appKey: self.appKey, masterSecret: self.masterSecret, session: session)
        try await upload.put(document: document, attributesType: self.attributesType, version: self.version)
    }
}
