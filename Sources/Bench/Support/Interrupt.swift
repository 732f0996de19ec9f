import Dispatch
import Foundation

/// Ctrl-C (SIGINT) or SIGTERM during a bench: its programs get the signal from the terminal too, but PostgreSQL runs
/// detached (pg_ctl), so it is stopped here, and the work directory removed, before the bench exits (the scripts'
/// `trap cleanup EXIT`); `first` signals the bench's programs, which a SIGTERM to the bench alone would orphan.
enum Interrupt {
    // Only appended to by `stopPostgres`, which a bench calls once, at the start of its run, from one task; it keeps
    // the sources alive for the process's lifetime and is never read.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    static func stopPostgres(
        on signals: [Int32] = [SIGINT, SIGTERM], repository: Repository, data: String,
        work: String, prefix: [String], first: @escaping @Sendable () -> Void
    ) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                first()
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = prefix + [repository.root + "/scripts/pg.sh", "stop", data]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try? process.run()
                process.waitUntilExit()
                try? FileManager.default.removeItem(atPath: work)
                exit(128 + number)
            }
            source.resume()
            self.sources.append(source)
        }
    }
}
