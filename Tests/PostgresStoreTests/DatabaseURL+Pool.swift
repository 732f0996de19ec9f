import LiveActivitiesCore
import PostgresNIO
import PostgresStore
import Testing

/// A server's pool is opened whole and kept, with no timer scheduled when a connection goes back to it.
@Suite struct DatabaseURLPoolTests {
    @Test func serversKeepEveryConnectionWithoutTimers() throws {
        let url = try DatabaseURL("postgres://app@db/gateway")
        let server = url.clientConfiguration(maxConnections: 16, fixedSize: true)
        #expect(server.options.minimumConnections == 16 && server.options.maximumConnections == 16)
        #expect(server.options.keepAliveBehavior == nil)
    }

    @Test func toolsOpenOnDemand() throws {
        let tool = try DatabaseURL("postgres://app@db/gateway").clientConfiguration(maxConnections: 2)
        #expect(tool.options.minimumConnections == 0 && tool.options.maximumConnections == 2)
        #expect(tool.options.keepAliveBehavior == nil)
    }
}
