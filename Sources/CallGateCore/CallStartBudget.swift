/// How many calls each user may still start this minute (`CoreConfiguration.maxCallsPerMinute`):
/// a fixed one-minute window per user, on the monotonic clock. Windows that ended are swept
/// once a minute, so memory stays with the users who called in the last two minutes.
/// Service thread only.
struct CallStartBudget {
    private static let windowMillis: Int64 = 60_000
    private var windows: [String: (start: Int64, count: Int)] = [:]
    private var lastSweep: Int64 = 0

    /// Whether `uid` may start another call at `now`: fewer than `limit` started in the window.
    func allows(_ uid: String, limit: Int, now: Int64) -> Bool {
        guard let window = windows[uid], now - window.start < Self.windowMillis else { return limit > 0 }
        return window.count < limit
    }

    /// Counts a call `uid` started at `now`; check `allows` first.
    mutating func record(_ uid: String, now: Int64) {
        sweep(now: now)
        var window = windows[uid] ?? (now, 0)
        if now - window.start >= Self.windowMillis {
            window = (now, 0)
        }
        window.count += 1
        windows[uid] = window
    }

    private mutating func sweep(now: Int64) {
        guard now - lastSweep >= Self.windowMillis else { return }
        lastSweep = now
        windows = windows.filter { now - $0.value.start < Self.windowMillis }
    }
}
