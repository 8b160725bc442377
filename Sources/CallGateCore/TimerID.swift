/// The handle of a scheduled timer, used to cancel it. Ids are never reused, so a cancelled
/// timer's id cannot match a newer one.
public struct TimerID: Hashable, Comparable, Sendable {
    /// Increases with every timer scheduled.
    let generation: UInt64

    public static func < (lhs: TimerID, rhs: TimerID) -> Bool {
        lhs.generation < rhs.generation
    }
}
