/// A per-socket message budget: `ratePerSecond` messages a second on average, and bursts of up
/// to `burst` at once. Pure: the caller passes the time, in milliseconds of a monotonic clock.
///
/// Tokens are kept in thousandths so that refills stay exact in integers at any rate.
struct TokenBucket {
    let ratePerSecond: Int64
    let burst: Int64
    private var milliTokens: Int64
    private var lastMillis: Int64

    /// A full bucket at `now`.
    init(ratePerSecond: Int, burst: Int, now: Int64) {
        precondition(ratePerSecond > 0 && burst > 0)
        self.ratePerSecond = Int64(ratePerSecond)
        self.burst = Int64(burst)
        milliTokens = Int64(burst) * 1000
        lastMillis = now
    }

    /// Takes one token at `now`; false when the budget is spent. Time going backwards refills nothing.
    mutating func take(now: Int64) -> Bool {
        let elapsed = min(max(0, now - lastMillis), 3_600_000)
        lastMillis = max(lastMillis, now)
        milliTokens = min(burst * 1000, milliTokens + elapsed * ratePerSecond)
        guard milliTokens >= 1000 else { return false }
        milliTokens -= 1000
        return true
    }
}
