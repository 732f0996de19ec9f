import Foundation

/// The contract version of each attributes type this build decodes (`la_set_contract_version`), sent with the
/// type's push-to-start token and with every instance tracked (docs/contracts.md). Process-wide, like the client.
final class ContractVersions: @unchecked Sendable {
    // @unchecked: the only stored state is `versions`, read and written only under `lock` (an NSLock; the package's
    // iOS 16.1 floor rules out `Synchronization.Mutex`).
    private let lock = NSLock()
    private var versions: [String: Int] = [:]

    static let shared = ContractVersions()

    subscript(attributesType: String) -> Int? {
        get {
            self.lock.lock()
            defer { self.lock.unlock() }
            return self.versions[attributesType]
        }
        set {
            self.lock.lock()
            defer { self.lock.unlock() }
            self.versions[attributesType] = newValue
        }
    }
}
