import Logging
import NIOConcurrencyHelpers

/// Collects every log line (message and metadata) so that tests can assert what never appears in logs.
final class LogCapture: Sendable {
    private let lines = NIOLockedValueBox<[String]>([])

    var text: String { self.lines.withLockedValue { $0.joined(separator: "\n") } }

    func handler(label: String) -> some LogHandler { Handler(label: label, capture: self) }

    fileprivate func append(_ line: String) { self.lines.withLockedValue { $0.append(line) } }

    struct Handler: LogHandler {
        let label: String
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { self.metadata[key] }
            set { self.metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
            self.capture.append("\(event.level) \(self.label) \(event.message) \(merged)")
        }
    }
}
