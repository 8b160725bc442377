import Foundation

/// Where the core reads the time. Injected so tests can fast-forward ring timeouts and grace
/// periods without sleeping, and step the wall clock apart from the monotonic one.
///
/// Two readings, because they answer different questions: the wall clock dates things (call log
/// timestamps, the ring deadline a restart resumes from); the monotonic clock times them (every
/// timer and every duration), so an NTP step or a changed system time moves no timeout.
public protocol CoreClock: Sendable {
    /// The current wall time as Unix milliseconds.
    func nowMillis() -> Int64
    /// Milliseconds on a clock that never jumps, from an arbitrary origin.
    func monotonicMillis() -> Int64
}

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

extension Duration {
    /// The duration in whole milliseconds, rounded toward zero.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
