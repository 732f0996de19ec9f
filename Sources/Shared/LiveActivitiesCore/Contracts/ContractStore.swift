/// Where contracts live (`PostgresContractStore`), and the facts the door reads for a push.
public protocol ContractStore: Sendable {
    /// Stores (or replaces) one version; returns whether it was new.
    func put(appID: Int64, _ contract: AttributesContract) async throws -> Bool
    func get(appID: Int64, attributesType: String, version: Int) async throws -> AttributesContract?
    /// Returns whether it existed.
    func delete(appID: Int64, attributesType: String, version: Int) async throws -> Bool
    /// Every stored version, by type then version.
    func list(appID: Int64) async throws -> [ContractSummary]
    /// For a start: the contracts of `attributesType` and the versions its push-to-start tokens reported. For an
    /// update or end: the types and versions of the instances tracked under `name`, and those types' contracts.
    func facts(appID: Int64, for notification: LiveActivityNotification) async throws -> ContractFacts
}
