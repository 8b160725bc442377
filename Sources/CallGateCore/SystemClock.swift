import Foundation

/// The real clock: the system's wall time, and a monotonic clock counted from this value's making.
public struct SystemClock: CoreClock {
    private let origin = ContinuousClock.now

    /// Makes a system clock.
    public init() {}

    /// The current wall time as Unix milliseconds.
    public func nowMillis() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Milliseconds since this clock was made, on the system's monotonic clock.
    public func monotonicMillis() -> Int64 {
        (ContinuousClock.now - origin).wholeMilliseconds
    }
}
