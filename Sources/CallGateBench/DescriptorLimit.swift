import Foundation

/// The process's open-file limit (`RLIMIT_NOFILE`) against the sockets a run wants.
///
/// Every socket is a descriptor; a run that passes the limit would fail somewhere deep inside
/// libwebsockets with EMFILE. This checks first, raises the soft limit to the hard one when that
/// is enough, and otherwise says plainly what the limit is. libwebsockets sizes its descriptor
/// table from the limit when a context is created, so this must run before the client loop starts.
public struct DescriptorLimit: Sendable, Equatable {
    /// Descriptors a run needs besides its sockets: standard streams, the event loop, lws's
    /// wake-up pipe, the admin HTTP client, /proc reads, the JSON and report files.
    public static let reserve = 64

    /// The soft limit now in force.
    public var soft: UInt64
    /// The hard limit, the ceiling an unprivileged process may raise the soft limit to.
    public var hard: UInt64

    /// What to do for a run of `sockets` sockets.
    public enum Decision: Equatable, Sendable {
        /// The soft limit is enough.
        case enough
        /// Raise the soft limit to this value first.
        case raise(to: UInt64)
        /// Not possible; the message says why, in one line.
        case tooLow(String)
    }

    /// Limits read from the process (or given, in tests).
    public init(soft: UInt64, hard: UInt64) {
        self.soft = soft
        self.hard = hard
    }

    /// The limits of this process now.
    public static func current() -> DescriptorLimit {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return DescriptorLimit(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max))
    }

    /// Whether `sockets` sockets fit, and how.
    public func decision(forSockets sockets: Int) -> Decision {
        let needed = UInt64(sockets + Self.reserve)
        if needed <= soft { return .enough }
        if needed <= hard { return .raise(to: hard) }
        let most = hard > UInt64(Self.reserve) ? hard - UInt64(Self.reserve) : 0
        return .tooLow(
            "--sockets \(sockets) needs about \(needed) file descriptors but this process may open at most \(hard) (ulimit -n hard limit): use --sockets \(most) or fewer, or raise the limit")
    }

    /// Checks and, if needed, raises this process's soft limit for `sockets` sockets.
    public static func ensure(forSockets sockets: Int) throws(BenchError) {
        let limit = current()
        switch limit.decision(forSockets: sockets) {
        case .enough:
            return
        case .raise(let value):
            var raised = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(limit.hard))
            guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 else {
                throw BenchError("cannot raise the open-file limit from \(limit.soft) to \(value): \(String(cString: strerror(errno)))")
            }
        case .tooLow(let message):
            throw BenchError(message)
        }
    }
}
