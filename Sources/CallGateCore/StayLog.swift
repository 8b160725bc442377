/// The times one user spent in an answered call: first join, last leave, and the seconds of
/// every stay, with the stay in progress still open. Service thread only.
struct StayLog: Hashable {
    /// When their first stay started, Unix seconds.
    var joinedAt: Int64?
    /// When their last stay ended; nil while one runs.
    var leftAt: Int64?
    /// Seconds of the stays that are over.
    var closedSeconds: Int64 = 0
    /// When the stay in progress started; nil when none runs.
    var stayStartedAt: Int64?

    /// A stay starts at `now`, unless one runs; the first one sets `joinedAt`.
    mutating func start(at now: Int64) {
        guard stayStartedAt == nil else { return }
        joinedAt = joinedAt ?? now
        leftAt = nil
        stayStartedAt = now
    }

    /// The stay in progress, if any, ends at `now`.
    mutating func end(at now: Int64) {
        guard let start = stayStartedAt else { return }
        closedSeconds += max(0, now - start)
        leftAt = now
        stayStartedAt = nil
    }
}
