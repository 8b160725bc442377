import Foundation
import Synchronization

/// Where SIGINT and SIGTERM go while a libuv context runs.
///
/// lws's libuv loop installs its own watchers for these signals, so the process no longer dies
/// on them by default; they come here instead. Signals are process-wide, so this is too: the
/// program registers one handler (a server starts its graceful shutdown). With none registered
/// the signal gets its default action, as if lws had not caught it.
public enum SignalRelay {
    private static let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)

    /// Sets the handler for SIGINT and SIGTERM (nil restores the default action).
    public static func setHandler(_ newHandler: (@Sendable (Int32) -> Void)?) {
        handler.withLock { $0 = newHandler }
    }

    /// Called from the lws signal callback on a service thread.
    static func deliver(_ signal: Int32) {
        if let current = handler.withLock({ $0 }) {
            current(signal)
        } else {
            Foundation.signal(signal, SIG_DFL)
            raise(signal)
        }
    }
}
