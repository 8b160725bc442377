/// How many times each user may still act in the current window: the calls they start per minute
/// (`CoreConfiguration.maxCallsPerMinute`), the session events they send per ten seconds
/// (`maxSessionEventsPerWindow`). A fixed window per user, on the monotonic clock. Windows that
/// ended are swept once a window, so memory stays with the users who acted in the last two.
/// Service thread only.
struct UserBudget {
    /// How long a window lasts, in milliseconds.
    let windowMillis: Int64
    private var windows: [String: (start: Int64, count: Int)] = [:]
    private var lastSweep: Int64 = 0

    /// A budget whose windows last `windowMillis`.
    init(windowMillis: Int64) {
        self.windowMillis = windowMillis
    }

    /// Whether `uid` may act once more at `now`: fewer than `limit` times in the window.
    func allows(_ uid: String, limit: Int, now: Int64) -> Bool {
        guard let window = windows[uid], now - window.start < windowMillis else { return limit > 0 }
        return window.count < limit
    }

    /// Counts an act of `uid` at `now` when `allows` lets it; returns whether it did.
    mutating func spend(_ uid: String, limit: Int, now: Int64) -> Bool {
        guard allows(uid, limit: limit, now: now) else { return false }
        record(uid, now: now)
        return true
    }

    /// Counts an act of `uid` at `now`; check `allows` first.
    mutating func record(_ uid: String, now: Int64) {
        sweep(now: now)
        var window = windows[uid] ?? (now, 0)
        if now - window.start >= windowMillis {
            window = (now, 0)
        }
        window.count += 1
        windows[uid] = window
    }

    private mutating func sweep(now: Int64) {
        guard now - lastSweep >= windowMillis else { return }
        lastSweep = now
        windows = windows.filter { now - $0.value.start < windowMillis }
    }
}
