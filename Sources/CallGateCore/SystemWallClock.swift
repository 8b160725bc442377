import Foundation

/// The real clock: the system's wall time.
public struct SystemWallClock: WallClock {
    /// Makes a system clock.
    public init() {}

    /// The current wall time as Unix milliseconds.
    public func nowMillis() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
