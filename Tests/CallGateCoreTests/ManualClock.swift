import CallGateCore
import Synchronization

/// A clock that only moves when a test moves it.
final class ManualClock: WallClock {
    private let now: Mutex<Int64>

    init(millis: Int64) {
        now = Mutex(millis)
    }

    func nowMillis() -> Int64 {
        now.withLock { $0 }
    }

    func advance(millis: Int64) {
        now.withLock { $0 += millis }
    }
}
