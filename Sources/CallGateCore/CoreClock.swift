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
