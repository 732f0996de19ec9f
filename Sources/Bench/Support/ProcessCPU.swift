import Foundation

/// CPU seconds (user + system) of a process, or of a PostgreSQL server and all its backends, read from `/proc`.
enum ProcessCPU {
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The fields of `/proc/<pid>/stat` after the command name: [0] state, [1] ppid, [11] utime, [12] stime, [13]
    /// cutime, [14] cstime (the CPU of its children that exited and were waited for).
    static func fields(_ pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: end)...].split(separator: " ")
    }

    static func seconds(_ pid: Int32) -> Double {
        guard let f = fields(pid), f.count > 12, let user = Double(f[11]), let system = Double(f[12]) else { return 0 }
        return (user + system) / self.ticksPerSecond
    }

    /// The postmaster (first line of `postmaster.pid` in `dataDirectory`) and every child, in clock ticks: `ps -o
    /// times` rounds each process down to whole seconds, which with a dozen backends under-counts by seconds. The
    /// children that exited count too (the postmaster's `cutime` and `cstime`: it waits for each backend): a sum of
    /// the live ones alone fell when the seeding's backends ended, and a run read -493 s.
    static func postgres(dataDirectory: String) -> Double {
        guard let pidFile = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
            let main = pidFile.split(separator: "\n").first.flatMap({ Int32($0) })
        else { return 0 }
        var total = self.seconds(main)
        if let f = fields(main), f.count > 14, let user = Double(f[13]), let system = Double(f[14]) {
            total += (user + system) / self.ticksPerSecond
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let f = fields(pid), f.count > 1, Int32(f[1]) == main else { continue }
            total += self.seconds(pid)
        }
        return total
    }
}
