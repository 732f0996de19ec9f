import LiveActivitiesCore
import Logging

/// One configuration value: a command-line flag that wins over an environment variable.
///
/// Every executable declares its settings as `Setting` values so that the deployment files
/// (`docker-compose.yml`, k8s manifests) can be checked against the names the binaries really read.
public struct Setting: Sendable, Hashable {
    public let flag: String
    public let environment: String

    public init(flag: String, environment: String) {
        self.flag = flag
        self.environment = environment
    }

    public var label: String { "\(self.environment) (--\(self.flag))" }
}

/// Resolves settings from flag values and an environment dictionary, producing `ConfigError`s that name the setting.
public struct SettingsResolver: Sendable {
    public let environment: [String: String]

    public init(environment: [String: String]) {
        self.environment = environment
    }

    public func value(_ setting: Setting, flag: String?) -> String? {
        if let flag, !flag.isEmpty { return flag }
        if let env = self.environment[setting.environment], !env.isEmpty { return env }
        return nil
    }

    public func required(_ setting: Setting, flag: String?) throws -> String {
        guard let value = self.value(setting, flag: flag) else {
            throw ConfigError(setting: setting.label, problem: "is required but was not set")
        }
        return value
    }

    public func integer(_ setting: Setting, flag: String?, default def: Int, range: ClosedRange<Int>) throws -> Int {
        guard let raw = self.value(setting, flag: flag) else { return def }
        guard let n = Int(raw), range.contains(n) else {
            throw ConfigError(
                setting: setting.label,
                problem: "must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(raw)'"
            )
        }
        return n
    }

    public func logLevel(_ setting: Setting, flag: String?, default def: Logger.Level = .info) throws -> Logger.Level {
        guard let raw = self.value(setting, flag: flag) else { return def }
        guard let level = Logger.Level(rawValue: raw.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigError(setting: setting.label, problem: "must be one of \(names), got '\(raw)'")
        }
        return level
    }

    public func masterKey(_ setting: Setting, flag: String?) throws -> MasterKey {
        let raw = try self.required(setting, flag: flag)
        do {
            return try MasterKey(base64: raw)
        } catch {
            throw ConfigError(
                setting: setting.label, problem: "must be 32 bytes in base64 (e.g. `openssl rand -base64 32`)")
        }
    }

    /// The URL, with the statement timeout of `DATABASE_STATEMENT_TIMEOUT` (seconds, default 30, 0 for none).
    public func databaseURL(_ setting: Setting, flag: String?) throws -> DatabaseURL {
        let raw = try self.required(setting, flag: flag)
        var url: DatabaseURL
        do {
            url = try DatabaseURL(raw)
        } catch let error as DatabaseURL.ParseError {
            throw ConfigError(setting: setting.label, problem: error.reason)
        }
        let seconds = try self.integer(CommonSettings.statementTimeout, flag: nil, default: 30, range: 0...86_400)
        url.statementTimeout = seconds == 0 ? nil : .seconds(seconds)
        return url
    }
}

/// Settings shared by every executable.
public enum CommonSettings {
    public static let databaseURL = Setting(flag: "database-url", environment: "DATABASE_URL")
    public static let logLevel = Setting(flag: "log-level", environment: "LOG_LEVEL")
    public static let masterKey = Setting(flag: "master-key", environment: "MASTER_KEY")
    public static let migrationsDirectory = Setting(flag: "migrations", environment: "MIGRATIONS_DIR")
    /// No statement of a session runs longer (migrations excepted).
    public static let statementTimeout = Setting(
        flag: "database-statement-timeout", environment: "DATABASE_STATEMENT_TIMEOUT")
}
