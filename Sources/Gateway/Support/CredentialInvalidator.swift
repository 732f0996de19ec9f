import Logging
import PostgresStore
import ServiceLifecycle

/// Listens for changed apps (`AppChanges`) and drops their cached credentials: a secret rotated or an app deleted
/// through any gateway stops working on this one within about a second. When the listening connection is lost, the
/// whole cache is dropped (changes may have been missed meanwhile) and it listens again.
struct CredentialInvalidator: Service {
    let changes: AppChanges
    let credentials: CredentialCache
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await self.changes.listen(onListening: { await self.credentials.invalidateAll() }) { key in
                        await self.credentials.invalidate(appKey: key)
                    }
                } catch {
                    if Task.isCancelled { return }
                    self.logger.warning(
                        "app change notifications lost; listening again", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
