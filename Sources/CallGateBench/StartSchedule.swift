/// When a driver starts its next events: a `RatePacer` that begins with the scenario and stops
/// when the scenario stops starting new work. A plain value, owned by one driver on the bench
/// loop's thread.
struct StartSchedule {
    /// Events per second.
    let rate: Double
    private var pacer: RatePacer?
    private var stopped = false

    /// A schedule at `rate` that has not begun.
    init(rate: Double) {
        self.rate = rate
    }

    /// Begins pacing at `now` (nanoseconds).
    mutating func begin(now: UInt64) {
        pacer = RatePacer(rate: rate, start: now)
    }

    /// Starts nothing more.
    mutating func stop() {
        stopped = true
    }

    /// How many events are due at `now`; events the pacer had to drop are added to `skipped`.
    mutating func due(now: UInt64, skipped: inout Int) -> Int {
        guard !stopped, var pacer else { return 0 }
        let droppedBefore = pacer.dropped
        let due = pacer.due(now: now)
        skipped += Int(pacer.dropped - droppedBefore)
        self.pacer = pacer
        return due
    }
}
