import Foundation

/// The environment knobs the benches read (N, WORKERS, SIM_LATENCY_MS, BIN_DIR, ...), as the scripts did.
struct Knobs: Sendable {
    let values: [String: String]

    init(_ values: [String: String] = ProcessInfo.processInfo.environment) { self.values = values }

    /// A knob's value; unset or empty is the default, as `${X:-default}` in bash.
    func string(_ name: String, _ fallback: String) -> String {
        guard let value = self.values[name], !value.isEmpty else { return fallback }
        return value
    }

    func optional(_ name: String) -> String? {
        guard let value = self.values[name], !value.isEmpty else { return nil }
        return value
    }

    func int(_ name: String, _ fallback: Int) throws -> Int {
        guard let raw = self.optional(name) else { return fallback }
        guard let value = Int(raw) else { throw BenchError("\(name) must be a whole number, not '\(raw)'") }
        return value
    }
}
