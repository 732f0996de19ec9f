import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The last word on a bounded shutdown: once SIGTERM or SIGINT has arrived, the process ends `deadline` later,
/// whatever its tasks are doing.
///
/// The service group bounds its own shutdown (`shuttingDownWithin`: graceful, then cancelled, then swift-service-
/// lifecycle's fatal error 5 s on), but that bound is kept by tasks on Swift's cooperative pool, two threads on two
/// cores: a shutdown whose threads both block (a synchronous wait on a connection the network left half-open) never
/// reaches it. The watchdog's timer runs on a dispatch queue of its own, outside that pool, and ends the process with
/// `_exit(1)` after saying why on standard error.
public enum ShutdownWatchdog {
    /// The armed signal sources, kept for the life of the process. Unsafe is safe here: written once, by `arm` in
    /// `main` before any task runs, and never read.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Whether a signal has started the clock; touched only on the watchdog's serial queue.
    private final class Clock {
        var started = false
    }

    /// Arms the watchdog; call once in an executable's `main`, before its service group runs. swift-service-lifecycle
    /// sets both signals to be ignored when the group starts, so that they arrive as events (here and there) instead of
    /// ending the process.
    public static func arm(deadline: Duration, program: String) {
        let queue = DispatchQueue(label: "lagw.shutdown-watchdog")
        let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18
        let clock = Clock()
        Self.sources = [SIGTERM, SIGINT].map { signal in
            let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
            source.setEventHandler {
                // The first signal starts the clock; later ones do not move it.
                guard !clock.started else { return }
                clock.started = true
                queue.asyncAfter(deadline: .now() + seconds) {
                    let line = "\(program): still running \(deadline) after the signal to stop; exiting now\n"
                    _ = line.withCString { write(2, $0, strlen($0)) }
                    _exit(1)
                }
            }
            source.resume()
            return source
        }
    }
}
