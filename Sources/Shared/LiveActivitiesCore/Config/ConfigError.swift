/// A setting that is missing or malformed. The process prints `description` (one line) and exits.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    /// The environment variable (and flag) that was wrong, e.g. `DATABASE_URL (--database-url)`.
    public let setting: String
    public let problem: String

    public init(setting: String, problem: String) {
        self.setting = setting
        self.problem = problem
    }

    public var description: String { "configuration error: \(self.setting): \(self.problem)" }
}
