import CallGateCore
import Synchronization

/// A clock that only moves when a test moves it; both readings start at `millis`. `advance`
/// moves both; `stepWall` moves only the wall clock, as an NTP step would.
public final class ManualClock: CoreClock {
    private let now: Mutex<(wall: Int64, monotonic: Int64)>

    public init(millis: Int64) {
        now = Mutex((millis, millis))
    }

    public func nowMillis() -> Int64 {
        now.withLock { $0.wall }
    }

    public func monotonicMillis() -> Int64 {
        now.withLock { $0.monotonic }
    }

    public func advance(millis: Int64) {
        now.withLock {
            $0.wall += millis
            $0.monotonic += millis
        }
    }

    public func stepWall(millis: Int64) {
        now.withLock { $0.wall += millis }
    }
}
