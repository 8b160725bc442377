/// Where the core reads the time. Injected so tests can fast-forward ring timeouts and grace
/// periods without sleeping.
public protocol WallClock: Sendable {
    /// The current time as Unix milliseconds.
    func nowMillis() -> Int64
}
