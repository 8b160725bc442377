import Dispatch
import Glibc
import Logging

/// Ends the process with status 1 if a shutdown overruns its time, whatever it is stuck on.
///
/// The store keeps every committed write (SQLite WAL), and nothing was sent that depends on a
/// write not yet committed, so cutting a slow shutdown short loses no state a client saw.
final class ShutdownWatchdog {
    private let work: DispatchWorkItem

    /// Arms the watchdog: `_exit(1)` after `timeout` unless `disarm` came first.
    init(timeout: Duration, logger: Logger) {
        work = DispatchWorkItem {
            logger.critical("shutdown took longer than \(timeout); exiting now")
            _exit(1)
        }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: work)
    }

    func disarm() {
        work.cancel()
    }
}
