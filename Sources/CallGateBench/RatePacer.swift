/// Spreads events evenly at a fixed rate: tells a periodic tick how many events are due.
///
/// Catches up after a late tick (several events at once) so that the rate over the run holds,
/// but never lets a backlog grow past `maxBurst`, so a generator that fell far behind does not
/// fire a storm when it recovers. A plain value; the driver that owns it calls it on its thread.
public struct RatePacer: Sendable {
    /// Events per second.
    public let rate: Double
    /// The most events one `due` call returns.
    public let maxBurst: Int
    private let start: UInt64
    private var released: UInt64 = 0
    /// Events that were due but dropped because the burst cap was hit.
    public private(set) var dropped: UInt64 = 0

    /// A pacer whose clock starts at `start` (nanoseconds).
    public init(rate: Double, start: UInt64, maxBurst: Int = 64) {
        precondition(rate > 0, "rate must be positive")
        self.rate = rate
        self.start = start
        self.maxBurst = max(1, maxBurst)
    }

    /// How many events to start now, `now` being a monotonic time in nanoseconds.
    public mutating func due(now: UInt64) -> Int {
        guard now > start else { return 0 }
        let elapsed = Double(now - start) / 1_000_000_000
        let target = UInt64(elapsed * rate)
        guard target > released else { return 0 }
        let owed = target - released
        if owed > UInt64(maxBurst) {
            dropped += owed - UInt64(maxBurst)
            released = target
            return maxBurst
        }
        released = target
        return Int(owed)
    }
}
