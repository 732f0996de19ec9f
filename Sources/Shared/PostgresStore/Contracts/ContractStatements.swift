import Foundation
import LiveActivitiesCore
import PostgresNIO

/// The statements of contracts (`PostgresContractStore`; docs/contracts.md).
enum ContractStatements {
    static let all: [any NamedStatement.Type] = [
        Put.self, Get.self, Delete.self, List.self, NameFacts.self, StartFacts.self,
    ]

    /// Stores version `$3` of app `$1`'s type `$2` (document `$4`); returns whether it was new.
    enum Put: NamedStatement {
        static let name = "lagw_contract_put"
        static let sql = """
            INSERT INTO activity_contracts AS c (app_id, attributes_type, version, document)
            VALUES ($1, $2, $3, $4::jsonb)
            ON CONFLICT (app_id, attributes_type, version)
            DO UPDATE SET document = excluded.document, updated_at = now()
            RETURNING (xmax = 0) AS created
            """
    }

    /// Version `$3` of app `$1`'s type `$2`, as stored.
    enum Get: NamedStatement {
        static let name = "lagw_contract_get"
        static let sql = """
            SELECT document::text FROM activity_contracts WHERE app_id = $1 AND attributes_type = $2 AND version = $3
            """
    }

    /// Deletes version `$3` of app `$1`'s type `$2`; returns the count deleted.
    enum Delete: NamedStatement {
        static let name = "lagw_contract_delete"
        static let sql = """
            WITH gone AS (
                DELETE FROM activity_contracts WHERE app_id = $1 AND attributes_type = $2 AND version = $3 RETURNING 1
            )
            SELECT count(*) FROM gone
            """
    }

    /// App `$1`'s contracts, by type then version.
    enum List: NamedStatement {
        static let name = "lagw_contract_list"
        static let sql = """
            SELECT attributes_type, version, updated_at FROM activity_contracts WHERE app_id = $1
            ORDER BY attributes_type, version
            """

        struct Row {
            var summary: ContractSummary

            init(_ row: PostgresRow) throws {
                let (type, version, updatedAt) = try row.decode((String, Int32, Date).self)
                self.summary = ContractSummary(attributesType: type, version: Int(version), updatedAt: updatedAt)
            }
        }
    }

    /// For an update or end of app `$1`'s name `$2`: the policy, the (type, version) pairs of the instances tracked
    /// under the name (a skip scan of `live_activities_contract_versions`: one probe per pair, not one per
    /// instance) and those types' contracts. Nothing but the policy is read when it is `off`.
    struct NameFacts: PostgresPreparedStatement, NamedStatement {
        static let name = "lagw_contract_name_facts"
        static let sql = """
            WITH RECURSIVE live (attributes_type, contract_version) AS (
                (SELECT l.attributes_type, l.contract_version FROM live_activities l
                 WHERE l.app_id = $1 AND l.name = $2 AND l.state = 'active'
                 ORDER BY l.attributes_type, l.contract_version LIMIT 1)
                UNION ALL
                SELECT n.attributes_type, n.contract_version
                FROM live p CROSS JOIN LATERAL (
                    SELECT l.attributes_type, l.contract_version FROM live_activities l
                    WHERE l.app_id = $1 AND l.name = $2 AND l.state = 'active'
                      AND (l.attributes_type, l.contract_version) > (p.attributes_type, p.contract_version)
                    ORDER BY l.attributes_type, l.contract_version LIMIT 1) n
            )
            SELECT a.contract_policy,
                   CASE WHEN a.contract_policy <> 'off' THEN ARRAY(SELECT attributes_type FROM live) END,
                   CASE WHEN a.contract_policy <> 'off' THEN ARRAY(SELECT contract_version FROM live) END,
                   CASE WHEN a.contract_policy <> 'off' THEN
                       (SELECT jsonb_agg(jsonb_build_object('type', c.attributes_type, 'version', c.version,
                                                            'document', c.document))
                        FROM activity_contracts c
                        WHERE c.app_id = $1 AND c.attributes_type IN (SELECT attributes_type FROM live))::text
                   END
            FROM apps a WHERE a.id = $1
            """

        /// Prepared once per connection: planning the skip scan costs more than running it (1.6 ms against 0.4).
        var appID: Int64
        var name: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.appID)
            bindings.append(self.name)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> FactsRow { try FactsRow(row) }
    }

    /// For a start of app `$1`'s type `$2`: the policy, the versions its active push-to-start tokens reported (a
    /// skip scan, as `NameFacts`) and the type's contracts.
    struct StartFacts: PostgresPreparedStatement, NamedStatement {
        static let name = "lagw_contract_start_facts"
        static let sql = """
            WITH RECURSIVE live (contract_version) AS (
                (SELECT t.contract_version FROM push_to_start_tokens t
                 WHERE t.app_id = $1 AND t.attributes_type = $2 AND t.state = 'active'
                 ORDER BY t.contract_version LIMIT 1)
                UNION ALL
                SELECT n.contract_version
                FROM live p CROSS JOIN LATERAL (
                    SELECT t.contract_version FROM push_to_start_tokens t
                    WHERE t.app_id = $1 AND t.attributes_type = $2 AND t.state = 'active'
                      AND t.contract_version > p.contract_version
                    ORDER BY t.contract_version LIMIT 1) n
            )
            SELECT a.contract_policy,
                   CASE WHEN a.contract_policy <> 'off' THEN ARRAY(SELECT $2::text FROM live) END,
                   CASE WHEN a.contract_policy <> 'off' THEN ARRAY(SELECT contract_version FROM live) END,
                   CASE WHEN a.contract_policy <> 'off' THEN
                       (SELECT jsonb_agg(jsonb_build_object('type', c.attributes_type, 'version', c.version,
                                                            'document', c.document))
                        FROM activity_contracts c WHERE c.app_id = $1 AND c.attributes_type = $2)::text
                   END
            FROM apps a WHERE a.id = $1
            """

        var appID: Int64
        var attributesType: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.appID)
            bindings.append(self.attributesType)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> FactsRow { try FactsRow(row) }
    }

    /// A row of `NameFacts` or `StartFacts`.
    struct FactsRow: Sendable {
        var policy: String
        var liveTypes: [String]
        var liveVersions: [Int32]
        /// `[{"type", "version", "document"}]` as JSON text; nil when there is none.
        var contracts: String?

        init(_ row: PostgresRow) throws {
            let (policy, types, versions, contracts) = try row.decode((String, [String]?, [Int32]?, String?).self)
            (self.policy, self.liveTypes, self.liveVersions, self.contracts) =
                (policy, types ?? [], versions ?? [], contracts)
        }
    }
}
