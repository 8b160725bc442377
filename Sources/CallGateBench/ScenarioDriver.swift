/// What one scenario does with the connected sockets. Every method runs on the bench loop's
/// service thread; times are monotonic nanoseconds.
protocol ScenarioDriver: AnyObject {
    /// How often `tick` runs, in microseconds.
    var tickMicroseconds: Int64 { get }
    /// Whether nothing the driver started is still under way (checked after `stopStarting`).
    var isDrained: Bool { get }
    /// Every socket is connected: the measured part begins.
    func start(now: UInt64)
    /// Periodic: start what the rate says is due.
    func tick(now: UInt64)
    /// The duration is over: start nothing new, let what runs finish.
    func stopStarting()
    /// A socket authenticated again after a reconnect.
    func ready(_ socket: BenchSocket, now: UInt64)
    /// A reply to a request the driver sent (`connect` replies are the engine's).
    func reply(_ kind: RequestKind, on socket: BenchSocket, fields: FrameFields, now: UInt64)
    /// A push.
    func push(_ kind: PushKind, on socket: BenchSocket, fields: FrameFields, now: UInt64)
    /// A ready socket closed; returns whether the driver expected it (churn), else it is an error.
    func closed(_ socket: BenchSocket, now: UInt64) -> Bool
    /// Once a second: give up on work stuck longer than `limit` nanoseconds.
    func abandonStalled(now: UInt64, limit: UInt64)
    /// A short account of progress for the progress line.
    func progressText(elapsedSeconds: Double) -> String
}

/// Spreads events evenly at a fixed rate: tells a periodic tick how many events are due.
///
/// Catches up after a late tick (several events at once) so that the rate over the run holds,
/// but never lets a backlog grow past `maxBurst`, so a generator that fell far behind does not
/// fire a storm when it recovers. A plain value; the driver that owns it calls it on its thread.
public struct RatePacer: Sendable {
    /// Events per second.
    public let rate: Double
    /// The most events one `due` call returns.
    public let maxBurst: Int
    private let start: UInt64
    private var released: UInt64 = 0
    /// Events that were due but dropped because the burst cap was hit.
    public private(set) var dropped: UInt64 = 0

    /// A pacer whose clock starts at `start` (nanoseconds).
    public init(rate: Double, start: UInt64, maxBurst: Int = 64) {
        precondition(rate > 0, "rate must be positive")
        self.rate = rate
        self.start = start
        self.maxBurst = max(1, maxBurst)
    }

    /// How many events to start now, `now` being a monotonic time in nanoseconds.
    public mutating func due(now: UInt64) -> Int {
        guard now > start else { return 0 }
        let elapsed = Double(now - start) / 1_000_000_000
        let target = UInt64(elapsed * rate)
        guard target > released else { return 0 }
        let owed = target - released
        if owed > UInt64(maxBurst) {
            dropped += owed - UInt64(maxBurst)
            released = target
            return maxBurst
        }
        released = target
        return Int(owed)
    }
}

/// When a driver starts its next events: a `RatePacer` that begins with the scenario and stops
/// when the scenario stops starting new work. A plain value, owned by one driver on the bench
/// loop's thread.
struct StartSchedule {
    /// Events per second.
    let rate: Double
    private var pacer: RatePacer?
    private var stopped = false

    /// A schedule at `rate` that has not begun.
    init(rate: Double) {
        self.rate = rate
    }

    /// Begins pacing at `now` (nanoseconds).
    mutating func begin(now: UInt64) {
        pacer = RatePacer(rate: rate, start: now)
    }

    /// Starts nothing more.
    mutating func stop() {
        stopped = true
    }

    /// How many events are due at `now`; events the pacer had to drop are added to `skipped`.
    mutating func due(now: UInt64, skipped: inout Int) -> Int {
        guard !stopped, var pacer else { return 0 }
        let droppedBefore = pacer.dropped
        let due = pacer.due(now: now)
        skipped += Int(pacer.dropped - droppedBefore)
        self.pacer = pacer
        return due
    }
}

/// The units of a scenario (ring pairs, groups) that are not in a call, taken in turn so every
/// unit gets its share; a unit is back in the rotation once its call is over. A plain value,
/// owned by one driver on the bench loop's thread.
struct IdleRotation {
    private var waiting: [Int]
    private var head = 0
    private let total: Int

    /// Units `0 ..< count`, all idle.
    init(count: Int) {
        waiting = Array(0..<count)
        total = count
    }

    /// How many units are in a call now.
    var busyCount: Int {
        total - (waiting.count - head)
    }

    /// The next idle unit that `isReady` accepts, taken out of the rotation; units it refuses
    /// go to the back. Nil when none is ready.
    mutating func take(where isReady: (Int) -> Bool) -> Int? {
        for _ in 0..<(waiting.count - head) {
            let unit = waiting[head]
            head += 1
            if head > 4_096 && head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            if isReady(unit) { return unit }
            waiting.append(unit)
        }
        return nil
    }

    /// Puts `unit` back, at the end of the turn.
    mutating func giveBack(_ unit: Int) {
        waiting.append(unit)
    }
}
