import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM is answered within the worker's deadline whatever its connections are doing: here PostgreSQL is a listener
/// that accepts and never says a word (as a server behind a dropped link looks), so the pool's connections hang in
/// their startup and the runner never gets a claim answered.
@Suite struct WorkerShutdownTests {
    @Test func aWorkerStuckOnASilentDatabaseExitsWithinItsDeadline() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("lagw-shutdown-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = WorkerProcesses.binary
        process.environment = ProcessInfo.processInfo.environment.merging([
            "DATABASE_URL": "postgres://postgres@127.0.0.1:\(silent.port)/postgres",
            "MASTER_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
            "WORKER_PORT": "0", "WORKER_SHUTDOWN_SECONDS": "1", "LOG_LEVEL": "debug",
        ]) { $1 }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Running its services (signals are events now) and connecting to the silent server.
        let ready = ContinuousClock.now + .seconds(30)
        while !((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Starting service lifecycle")
            || silent.accepted() == 0
        {
            guard ContinuousClock.now < ready, process.isRunning else {
                Issue.record("the worker did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let signalled = ContinuousClock.now
        process.terminate()
        // Its deadline: 1 s graceful, 5 s of cancelling, then the watchdog's second.
        while process.isRunning && ContinuousClock.now - signalled < .seconds(15) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let took = ContinuousClock.now - signalled
        #expect(!process.isRunning, "still running 15 s after SIGTERM")
        #expect(took < .seconds(8), "exited \(took) after SIGTERM")
        #expect(process.terminationReason == .exit, "ended by the signal, not by its own shutdown")
    }
}

/// A TCP listener on loopback that accepts connections and never reads or writes.
final class SilentListener: Sendable {
    let port: Int
    private let socket: Int32

    init() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else { throw TestSetupError("cannot listen on loopback") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        self.socket = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Connections accepted so far (each kept open, silent, until `close`).
    func accepted() -> Int {
        self.connections.withLock { connections in
            while case let fd = accept(self.socket, nil, nil), fd >= 0 { connections.append(fd) }
            return connections.count
        }
    }

    private let connections = Mutex<[Int32]>([])

    func close() {
        self.connections.withLock { $0.forEach { _ = Glibc.close($0) } }
        _ = Glibc.close(self.socket)
    }
}
