/// How many calls each user may still start this minute (`CoreConfiguration.maxCallsPerMinute`):
/// a fixed one-minute window per user, on the monotonic clock. Windows that ended are swept
/// once a minute, so memory stays with the users who called in the last two minutes.
/// Service thread only.
struct CallStartBudget {
    private static let windowMillis: Int64 = 60_000
    private var windows: [String: (start: Int64, count: Int)] = [:]
    private var lastSweep: Int64 = 0

    /// Spends one call start of `uid`'s budget at `now`; false when `limit` were started in the
    /// current window already (nothing is spent then).
    mutating func spend(_ uid: String, limit: Int, now: Int64) -> Bool {
        sweep(now: now)
        var window = windows[uid] ?? (now, 0)
        if now - window.start >= Self.windowMillis {
            window = (now, 0)
        }
        guard window.count < limit else { return false }
        window.count += 1
        windows[uid] = window
        return true
    }

    private mutating func sweep(now: Int64) {
        guard now - lastSweep >= Self.windowMillis else { return }
        lastSweep = now
        windows = windows.filter { now - $0.value.start < Self.windowMillis }
    }
}
