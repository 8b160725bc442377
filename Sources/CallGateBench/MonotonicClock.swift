import Foundation

/// Nanoseconds of `CLOCK_MONOTONIC`: cheap, never jumps, comparable across threads of one process.
public enum MonotonicClock {
    /// Now, in nanoseconds since an arbitrary fixed point.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
