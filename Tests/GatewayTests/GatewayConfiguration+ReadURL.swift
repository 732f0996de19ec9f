import TestSupport
import Testing

@testable import Gateway

/// `DATABASE_READ_URL` as the gateway's configuration reads it. (Reads served by the replica:
/// `GatewayReadReplicaTests`.)
@Suite struct GatewayReadURLSettingTests {
    @Test func theSettingIsReadWithTheStatementTimeout() throws {
        let options = try GatewayOptions.parse([])
        let configuration = try GatewayConfiguration(
            options: options,
            environment: [
                "DATABASE_URL": "postgres://u@primary/db", "DATABASE_READ_URL": "postgres://u@replica/db",
                "ADMIN_TOKEN": "0123456789abcdef0123", "MASTER_KEY": MasterKeyFixture.base64,
            ])
        #expect(configuration.readDatabaseURL?.host == "replica")
        #expect(configuration.readDatabaseURL?.statementTimeout == .seconds(30))
    }
}
