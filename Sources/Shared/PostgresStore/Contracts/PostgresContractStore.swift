import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// Contracts per app and attributes type, and the facts the door reads for a push (docs/contracts.md). Every call is
/// scoped by app id.
public struct PostgresContractStore: ContractStore {
    let database: Database

    public init(database: Database) { self.database = database }

    private var logger: Logger { self.database.logger }

    public func put(appID: Int64, _ contract: AttributesContract) async throws -> Bool {
        let document = String(decoding: try JSONEncoder().encode(contract.document), as: UTF8.self)
        let rows = try await self.database.client.query(
            ContractStatements.Put.query(appID, contract.attributesType, Int32(contract.version), document),
            logger: self.logger)
        for try await created in rows.decode(Bool.self) { return created }
        return false
    }

    public func get(appID: Int64, attributesType: String, version: Int) async throws -> AttributesContract? {
        let rows = try await self.database.client.query(
            ContractStatements.Get.query(appID, attributesType, Int32(version)), logger: self.logger)
        for try await text in rows.decode(String.self) {
            let document = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            return try AttributesContract(attributesType: attributesType, version: version, document: document)
        }
        return nil
    }

    public func delete(appID: Int64, attributesType: String, version: Int) async throws -> Bool {
        let rows = try await self.database.client.query(
            ContractStatements.Delete.query(appID, attributesType, Int32(version)), logger: self.logger)
        for try await count in rows.decode(Int64.self) { return count > 0 }
        return false
    }

    public func list(appID: Int64) async throws -> [ContractSummary] {
        let rows = try await self.database.client.query(ContractStatements.List.query(appID), logger: self.logger)
        return try rows.elements.map { try ContractStatements.List.Row($0).summary }
    }

    public func facts(appID: Int64, for notification: LiveActivityNotification) async throws -> ContractFacts {
        let rows =
            if notification.event == .start {
                try await self.database.client.execute(
                    ContractStatements.StartFacts(appID: appID, attributesType: notification.attributesType ?? ""),
                    logger: self.logger)
            } else {
                try await self.database.client.execute(
                    ContractStatements.NameFacts(appID: appID, name: notification.name ?? ""), logger: self.logger)
            }
        guard let row = rows.elements.first else { return .off }
        let policy = ContractPolicy(rawValue: row.policy) ?? .enforce
        guard policy != .off else { return .off }
        let live = zip(row.liveTypes, row.liveVersions).map {
            LiveContract(attributesType: $0, version: Int($1))
        }
        return ContractFacts(policy: policy, live: live, contracts: try Self.contracts(row.contracts))
    }

    struct StoredContract: Decodable {
        var type: String
        var version: Int
        var document: JSONValue
    }

    /// Stored documents were checked when put; one that no longer parses (a stricter gateway) is skipped, not fatal.
    static func contracts(_ json: String?) throws -> [AttributesContract] {
        guard let json else { return [] }
        let stored = try JSONDecoder().decode([StoredContract].self, from: Data(json.utf8))
        return stored.compactMap {
            try? AttributesContract(attributesType: $0.type, version: $0.version, document: $0.document)
        }
    }
}
