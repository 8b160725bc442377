/// When the sockets of a draining gateway were closed and when they were connected again
/// elsewhere (`drain`): counts per whole second since the first close, so a report shows whether
/// the moves were spread over the drain window or came at once. A plain value, owned by the
/// metrics on the bench loop's thread.
public struct MoveTimeline: Codable, Sendable, Equatable {
    /// Sockets the gateway closed with 1012 and a reconnect hint, per second since the first.
    public var closedPerSecond: [Int] = []
    /// Moved sockets authenticated on another gateway, per second since the first close.
    public var reconnectedPerSecond: [Int] = []
    /// Moved sockets whose reconnect failed (each is tried again on the next gateway).
    public var failedReconnects = 0
    /// The first close, in monotonic nanoseconds; nil before it.
    private var start: UInt64?

    private enum CodingKeys: String, CodingKey {
        case closedPerSecond, reconnectedPerSecond, failedReconnects
    }

    public init() {}

    /// A socket was closed with the hint at `now`.
    mutating func closed(now: UInt64) {
        Self.count(at: second(of: now), in: &closedPerSecond)
    }

    /// A moved socket authenticated again at `now`.
    mutating func reconnected(now: UInt64) {
        Self.count(at: second(of: now), in: &reconnectedPerSecond)
    }

    /// Sockets closed with the hint in all.
    public var closed: Int { closedPerSecond.reduce(0, +) }
    /// Moved sockets connected again in all.
    public var reconnected: Int { reconnectedPerSecond.reduce(0, +) }

    /// The whole seconds from the first close to `now`; `now` is the first close when none came yet.
    private mutating func second(of now: UInt64) -> Int {
        let first = start ?? now
        start = first
        return now > first ? Int((now - first) / 1_000_000_000) : 0
    }

    private static func count(at second: Int, in counts: inout [Int]) {
        if counts.count <= second {
            counts += [Int](repeating: 0, count: second + 1 - counts.count)
        }
        counts[second] += 1
    }
}
