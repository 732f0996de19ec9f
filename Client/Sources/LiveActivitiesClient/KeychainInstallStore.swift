#if canImport(Security)
    import Foundation
    import Security

    /// The record in the Keychain (a generic password item of this app, this device only, readable after the first
    /// unlock so that a push-started relaunch in the background can read it).
    public struct KeychainInstallStore: InstallStore {
        public let service: String
        public let account: String

        public init(service: String = "live-activities-gateway", account: String = "install") {
            self.service = service
            self.account = account
        }

        var query: [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: self.service,
                kSecAttrAccount as String: self.account,
            ]
        }

        public func load() throws -> InstallRecord? {
            var query = self.query
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data else {
                throw LiveActivitiesError.store("Keychain read failed (\(status))")
            }
            return try JSONDecoder().decode(InstallRecord.self, from: data)
        }

        public func save(_ record: InstallRecord) throws {
            let data = try JSONEncoder().encode(record)
            let update = [kSecValueData as String: data] as CFDictionary
            var status = SecItemUpdate(self.query as CFDictionary, update)
            if status == errSecItemNotFound {
                var add = self.query
                add[kSecValueData as String] = data
                add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
                status = SecItemAdd(add as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw LiveActivitiesError.store("Keychain write failed (\(status))") }
        }

        public func clear() throws {
            let status = SecItemDelete(self.query as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw LiveActivitiesError.store("Keychain delete failed (\(status))")
            }
        }
    }
#endif
