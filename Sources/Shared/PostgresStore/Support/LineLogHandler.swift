import LiveActivitiesCore
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One line per event on standard error: time, level, label, `[source]`, message, then the metadata as sorted
/// `key=value` pairs.
///
/// Unlike swift-log's `StreamLogHandler`, it renders metadata when a line is written, not each time a key is set.
/// Every request sets keys on its logger (Hummingbird's request id, the app key) and, at the usual levels, most
/// requests write nothing: `perf` on the gateway under load showed 2–3% of its CPU in `StreamLogHandler`'s
/// re-rendering on set.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    public init(label: String, level: Logger.Level, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.logLevel = level
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = self.line(for: event, time: Self.timestamp())
        line.withUTF8 { Self.writeToStandardError(UnsafeRawBufferPointer($0)) }
    }

    /// The rendered line, newline included: the handler's metadata, then the provider's, then the event's (each
    /// wins over the one before), then the event's error.
    func line(for event: LogEvent, time: String) -> String {
        var metadata = self.metadata
        if let provided = self.metadataProvider?.get() { metadata.merge(provided) { _, provided in provided } }
        if let extra = event.metadata { metadata.merge(extra) { _, extra in extra } }
        if let error = event.error { metadata["error"] = "\(String(reflecting: error))" }
        var line = "\(time) \(event.level) \(self.label): [\(event.source)] \(event.message)"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        return line + "\n"
    }

    /// One `write(2)` per line (more only if the kernel takes part of it): lines from many threads never interleave
    /// within a line on a pipe or a file opened for appending.
    private static func writeToStandardError(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes
        while let base = rest.baseAddress, !rest.isEmpty {
            let written = write(STDERR_FILENO, base, rest.count)
            if written < 0 {
                if errno == EINTR { continue }
                return  // nowhere left to report it
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[written...])
        }
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
