import Foundation
import LiveActivitiesCore

/// What authentication needs to check a Basic credential.
public struct AppAuthRecord: Sendable {
    public var id: Int64
    public var appKey: String
    public var appSecretHash: SecretHash
    public var masterSecretHash: SecretHash
    /// What the app secret may write on a channel.
    public var devicePermissions: DevicePermissions
    /// Requests per second of each credential, per gateway.
    public var rates: RequestRates
    /// The contracts' policy and whether the app has any (the door reads nothing for an app without).
    public var contracts: ContractUse

    public init(
        id: Int64, appKey: String, appSecretHash: SecretHash, masterSecretHash: SecretHash,
        devicePermissions: DevicePermissions = .default, rates: RequestRates = .default, contracts: ContractUse = .none
    ) {
        self.id = id
        self.appKey = appKey
        self.appSecretHash = appSecretHash
        self.masterSecretHash = masterSecretHash
        self.devicePermissions = devicePermissions
        self.rates = rates
        self.contracts = contracts
    }

    public enum Role: Sendable, Equatable {
        /// `app_key:master_secret`: server-to-server calls.
        case server
        /// `app_key:app_secret`: device calls, limited to the channel they name.
        case device
    }

    /// Which role `secret` grants, if any. Both comparisons always run, so timing says nothing of which matched.
    public func role(for secret: String) -> Role? {
        let isMaster = self.masterSecretHash.matches(secret)
        let isApp = self.appSecretHash.matches(secret)
        if isMaster { return .server }
        if isApp { return .device }
        return nil
    }
}
