/// Keeps a flood of one kind of event out of the log: the first event is logged at once, the
/// ones after it are counted and reported together, at most one line per `periodMillis`.
/// Pure: the caller passes the time (milliseconds of a monotonic clock).
struct BurstLog {
    let periodMillis: Int64
    private var lastLineMillis: Int64?
    private var unreported = 0

    init(periodMillis: Int64) {
        self.periodMillis = periodMillis
    }

    /// Records one event at `now`; returns how many events a log line written now should report
    /// (this one and those held back since the last line), or nil to stay quiet.
    mutating func record(now: Int64) -> Int? {
        unreported += 1
        if let lastLineMillis, now - lastLineMillis < periodMillis { return nil }
        lastLineMillis = now
        defer { unreported = 0 }
        return unreported
    }
}
