import Foundation
import PostgresNIO

/// A prepared statement about one channel of one app: `$1` is the channel, `$2` the app (the lookups of
/// `GET /api/channels/{id}`).
protocol ChannelScopedStatement: PostgresPreparedStatement {
    var channelID: UUID { get }
    var appID: Int64 { get }
}

extension ChannelScopedStatement {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(self.channelID)
        bindings.append(self.appID)
        return bindings
    }
}
