import LiveActivitiesCore
import PostgresNIO
import PostgresStore
import Testing

/// A server's pool keeps one connection: a minimum of more traps postgres-nio 1.33's pool after an outage.
@Suite struct DatabaseURLPoolTests {
    @Test func serversKeepOneConnection() throws {
        let url = try DatabaseURL("postgres://app@db/gateway")
        let server = url.clientConfiguration(maxConnections: 16, keepsOneOpen: true)
        #expect(server.options.minimumConnections == 1 && server.options.maximumConnections == 16)
        #expect(server.options.keepAliveBehavior == nil)
    }

    @Test func toolsOpenOnDemand() throws {
        let tool = try DatabaseURL("postgres://app@db/gateway").clientConfiguration(maxConnections: 2)
        #expect(tool.options.minimumConnections == 0 && tool.options.maximumConnections == 2)
        #expect(tool.options.keepAliveBehavior == nil)
    }
}
