import APNsBroadcast
import ServiceLifecycle

/// Closes the broadcast client's connections when the service group shuts down.
public struct BroadcastClientService: Service {
    let client: APNsBroadcastClient

    public init(client: APNsBroadcastClient) { self.client = client }

    public func run() async throws {
        try? await gracefulShutdown()
        await self.client.shutdown()
    }
}
