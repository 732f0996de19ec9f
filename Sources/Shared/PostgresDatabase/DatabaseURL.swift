import Foundation
import LiveActivitiesCore
import PostgresNIO

/// A `postgres://user:password@host:port[,host:port...]/database?sslmode=...&target_session_attrs=...` URL, in
/// libpq's syntax: several servers may be listed, and the pool uses the first that `targetSessionAttributes` accepts,
/// following it when it changes (a failover; see `ServerChoice`).
public struct DatabaseURL: Sendable, Equatable {
    public struct ParseError: Error, Equatable {
        public let reason: String
    }

    public enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    /// One server of the list.
    public struct Server: Sendable, Equatable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        public var description: String {
            self.host.contains(":") ? "[\(self.host)]:\(self.port)" : "\(self.host):\(self.port)"
        }
    }

    /// In the URL's order, at least one.
    public var servers: [Server]
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// Which server the pool uses when several are listed (libpq's `target_session_attrs`; default `any`).
    public var targetSessionAttributes: TargetSessionAttributes
    /// `statement_timeout` of every session of the pool (nil: PostgreSQL's default, none).
    public var statementTimeout: Duration?

    /// The first server's host and port.
    public var host: String { self.servers[0].host }
    public var port: Int { self.servers[0].port }

    public init(_ string: String) throws {
        let scheme = ["postgres://", "postgresql://"].first { string.hasPrefix($0) }
        guard let scheme else {
            throw ParseError(reason: "must be a postgres:// URL like postgres://user:pass@localhost:5432/db")
        }
        let rest = string.dropFirst(scheme.count)
        let (beforeQuery, query) = Self.split(rest, at: "?")
        let (authority, path) = Self.split(beforeQuery, at: "/")
        let at = authority.lastIndex(of: "@")
        let userInfo = at.map { authority[..<$0] } ?? ""
        let hostList = at.map { authority[authority.index(after: $0)...] } ?? authority[...]
        self.servers = try hostList.split(separator: ",", omittingEmptySubsequences: false).map(Self.server)
        let (user, password) = Self.split(userInfo, at: ":")
        guard !user.isEmpty else { throw ParseError(reason: "has no user name") }
        self.username = Self.decoded(user)
        self.password = password.map(Self.decoded)
        let database = Self.decoded(path ?? "")
        guard !database.isEmpty else {
            throw ParseError(reason: "has no database name (the path after the port)")
        }
        self.database = database
        var parameters: [String: String] = [:]
        for item in (query ?? "").split(separator: "&") {
            let (name, value) = Self.split(item, at: "=")
            parameters[Self.decoded(name)] = Self.decoded(value ?? "")
        }
        self.tls = .disable
        if let mode = parameters["sslmode"] {
            guard let parsed = TLSMode(rawValue: mode) else {
                throw ParseError(reason: "sslmode must be disable, prefer or require, got '\(mode)'")
            }
            self.tls = parsed
        }
        self.targetSessionAttributes = .any
        if let attributes = parameters["target_session_attrs"] {
            guard let parsed = TargetSessionAttributes(rawValue: attributes) else {
                let names = TargetSessionAttributes.allCases.map(\.rawValue).joined(separator: ", ")
                throw ParseError(reason: "target_session_attrs must be one of \(names), got '\(attributes)'")
            }
            self.targetSessionAttributes = parsed
        }
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`.
    private static func server(_ text: Substring) throws -> Server {
        var host = text
        var port: Substring?
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            port = after.hasPrefix(":") ? after.dropFirst() : nil
        } else {
            (host, port) = Self.split(text, at: ":")
        }
        guard !host.isEmpty else { throw ParseError(reason: "has no host") }
        guard let port else { return Server(host: Self.decoded(host), port: 5432) }
        guard let number = Int(port), (1...65535).contains(number) else {
            throw ParseError(reason: "has a port that is not a number from 1 to 65535: '\(port)'")
        }
        return Server(host: Self.decoded(host), port: number)
    }

    private static func split(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }

    private static func decoded(_ text: Substring) -> String { text.removingPercentEncoding ?? String(text) }
}
