import Foundation

/// PostgreSQL's network namespace for `bench chaos` (root only): reached over a veth pair at 10.231.0.2, so that
/// `net-drop` can stop every packet between the programs and it.
struct NetworkNamespace: Sendable {
    let name: String
    let hostSide: String
    let namespaceSide: String
    let address = "10.231.0.2"

    /// A namespace and its veth pair, or nil when this user may not make one.
    static func make() async -> NetworkNamespace? {
        guard getuid() == 0 else { return nil }
        let pid = getpid()
        let ns = NetworkNamespace(name: "lagw-chaos-\(pid)", hostSide: "lagwc0-\(pid)", namespaceSide: "lagwc1-\(pid)")
        guard (try? await ip(["netns", "add", ns.name])) != nil else { return nil }
        do {
            try await ip(["link", "add", ns.hostSide, "type", "veth", "peer", "name", ns.namespaceSide])
            try await ip(["link", "set", ns.namespaceSide, "netns", ns.name])
            try await ip(["addr", "add", "10.231.0.1/30", "dev", ns.hostSide])
            try await ip(["link", "set", ns.hostSide, "up"])
            try await ns.exec(["ip", "addr", "add", "10.231.0.2/30", "dev", ns.namespaceSide])
            try await ns.exec(["ip", "link", "set", ns.namespaceSide, "up"])
            try await ns.exec(["ip", "link", "set", "lo", "up"])
        } catch {
            await ns.remove()
            return nil
        }
        return ns
    }

    /// The prefix that runs a command inside the namespace.
    var prefix: [String] { ["ip", "netns", "exec", self.name] }

    func exec(_ command: [String]) async throws {
        _ = try await ChildProcess.output("/usr/bin/env", self.prefix + command)
    }

    static func ip(_ arguments: [String]) async throws {
        _ = try await ChildProcess.output("/usr/bin/env", ["ip"] + arguments)
    }

    /// A token bucket that holds no packet, on both ends, for `seconds`: every packet dropped, both ways.
    func drop(seconds: Int) async throws {
        let qdisc = ["root", "tbf", "rate", "1kbit", "burst", "10", "limit", "10"]
        _ = try await ChildProcess.output("/usr/bin/env", ["tc", "qdisc", "add", "dev", self.hostSide] + qdisc)
        try await self.exec(["tc", "qdisc", "add", "dev", self.namespaceSide] + qdisc)
        try await Task.sleep(for: .seconds(seconds))
        _ = try await ChildProcess.output("/usr/bin/env", ["tc", "qdisc", "del", "dev", self.hostSide, "root"])
        try await self.exec(["tc", "qdisc", "del", "dev", self.namespaceSide, "root"])
    }

    func remove() async {
        try? await Self.ip(["link", "del", self.hostSide])
        try? await Self.ip(["netns", "del", self.name])
    }
}
