/// One slot of the timer heap: fire `id` at `deadline`. Ties fire in scheduling order.
struct TimerEntry: Comparable {
    /// Unix milliseconds.
    let deadline: Int64
    /// The timer this slot belongs to.
    let id: TimerID

    static func < (lhs: TimerEntry, rhs: TimerEntry) -> Bool {
        (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
    }
}
