import Glibc

/// Milliseconds on the monotonic clock: only differences mean anything, and wall clock jumps
/// do not move it. Cheap enough (vDSO) to read on every received message.
enum MonotonicClock {
    static func millis() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
