import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Whether the database is a Citus coordinator (the `citus` extension is installed: docs/scaling.md), asked once per
/// `DeliveryLedger`. The few statements Citus runs only in another form have a variant of their own, chosen here.
final class DistributionProbe: Sendable {
    private let answer = Mutex<Bool?>(nil)

    func isDistributed(_ client: DatabaseClient, logger: Logger) async throws -> Bool {
        if let known = self.answer.withLock({ $0 }) { return known }
        var found = false
        let rows = try await client.query(
            "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')", logger: logger)
        for try await exists in rows.decode(Bool.self) { found = exists }
        self.answer.withLock { $0 = found }
        return found
    }
}
