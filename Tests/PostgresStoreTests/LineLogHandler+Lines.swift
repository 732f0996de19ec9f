import Logging
import Testing

@testable import LiveActivitiesCore
@testable import PostgresStore

@Suite struct LineLogHandlerTests {
    static func event(_ message: Logger.Message, metadata: Logger.Metadata? = nil) -> LogEvent {
        LogEvent(
            level: .info, message: message, metadata: metadata, source: "Gateway", file: #fileID,
            function: #function, line: #line)
    }

    @Test func aLineCarriesItsMetadataSortedAfterTheMessage() {
        var handler = LineLogHandler(label: "gateway", level: .info)
        handler[metadataKey: "app_key"] = "KEY"
        let line = handler.line(
            for: Self.event("request", metadata: ["status": "201", "route": "/api/channels/{channel_id}"]),
            time: "2026-11-24T09:00:00Z")
        #expect(
            line == "2026-11-24T09:00:00Z info gateway: [Gateway] request app_key=KEY route=/api/channels/{channel_id}"
                + " status=201\n")
    }

    @Test func theEventsMetadataWinsOverTheProvidersAndTheLoggers() {
        var handler = LineLogHandler(
            label: "worker", level: .debug, metadataProvider: .init { ["push_id": "provided", "job": "9"] })
        handler[metadataKey: "push_id"] = "set"
        handler[metadataKey: "app_key"] = "KEY"
        handler[metadataKey: "app_key"] = nil
        let line = handler.line(for: Self.event("sent", metadata: ["job": "10"]), time: "T")
        #expect(line == "T info worker: [Gateway] sent job=10 push_id=provided\n")
    }
}
