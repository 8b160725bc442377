/// The handle of a scheduled timer, used to cancel it. Ids are never reused, so a cancelled
/// timer's id cannot match a newer one.
struct TimerID: Hashable, Comparable {
    /// Increases with every timer scheduled.
    let generation: UInt64

    static func < (lhs: TimerID, rhs: TimerID) -> Bool {
        lhs.generation < rhs.generation
    }
}
