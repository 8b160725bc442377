import Glibc

/// The process's open-file limit, which bounds how many sockets it can hold.
enum OpenFileLimit {
    /// Descriptors kept free for everything but WebSockets: listening socket, event loop, the
    /// database and its WAL, HTTP requests in flight, logs.
    static let headroom = 512

    /// The default `--max-connections`: the soft `RLIMIT_NOFILE` at start minus `headroom`, at
    /// least 1; with no limit (`RLIM_INFINITY`, all bits set), 1,000,000.
    static func defaultMaxConnections() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return 1_000_000
        }
        return max(1, Int(min(limit.rlim_cur, 1_000_000 + UInt(headroom))) - headroom)
    }
}
