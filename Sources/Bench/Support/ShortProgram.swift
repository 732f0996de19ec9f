import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A short program run by `posix_spawn` and reaped by `waitpid`, not Foundation's `Process`: on Linux `Process` learns
/// of an exit from a socket its child inherits, and a daemon the child starts (`pg.sh start`'s postgres) keeps that
/// socket open, so the exit was never seen and the bench waited forever.
enum ShortProgram {
    /// Runs `executable` (an absolute path) with `stdout` and `stderr` written to the two files, fds from 3 up closed
    /// in the child; returns its exit status (128 + the signal when one ended it).
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]?, stdout: String, stderr: String
    ) async throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // No fd of the bench (its connections, Foundation's sockets) outlives it in a daemon the program starts.
        // (glibc 2.34+; Swift's Glibc module does not import it, so it is looked up.)
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in env { free(pointer) }
        }
        // The child starts with no signal blocked and every signal at its default: a spawned program inherits the
        // mask of the bench's thread, on which the runtime blocks some (pgbench's `-T` is a SIGALRM, and it ran on
        // past its end).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, env)
        guard spawned == 0 else { throw BenchError("posix_spawn \(executable): \(String(cString: strerror(spawned)))") }

        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped == -1 && errno != EINTR { throw BenchError("waitpid \(executable): errno \(errno)") }
            try? await Task.sleep(for: .milliseconds(20))
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import (macros).
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
