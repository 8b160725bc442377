/// `churn`: the first half of the sockets ring in pairs (as `ring`) while the second half is
/// closed and reconnected one socket at a time, both at `rate` per second. Shows what
/// connection churn does to ring latency, and measures `reconnect`. Service thread.
final class ChurnDriver: ScenarioDriver {
    private unowned let engine: BenchEngine
    private let ring: RingDriver
    private let pool: Range<Int>
    private var next: Int
    private var schedule: StartSchedule
    /// Pool sockets closed or reconnecting right now.
    private var inTransit = 0

    /// Ringing pairs over the first `stableSockets` sockets, churn over the rest.
    init(engine: BenchEngine, stableSockets: Int, totalSockets: Int, rate: Double) {
        self.engine = engine
        schedule = StartSchedule(rate: rate)
        ring = RingDriver(engine: engine, firstSocket: 0, pairCount: stableSockets / 2, rate: rate)
        pool = (stableSockets / 2 * 2)..<totalSockets
        next = pool.lowerBound
    }

    /// How many sockets ring in pairs for `sockets` sockets: half, rounded down to a pair.
    static func stableSockets(of sockets: Int) -> Int {
        sockets / 2 / 2 * 2
    }

    var tickMicroseconds: Int64 { 1_000 }

    var isDrained: Bool { ring.isDrained && inTransit == 0 }

    func start(now: UInt64) {
        ring.start(now: now)
        schedule.begin(now: now)
    }

    func tick(now: UInt64) {
        ring.tick(now: now)
        let due = schedule.due(now: now, skipped: &engine.metrics.counts.skipped)
        for _ in 0..<due {
            guard let socket = nextReadyPoolSocket() else {
                engine.metrics.counts.skipped += 1
                continue
            }
            inTransit += 1
            engine.metrics.counts.disconnects += 1
            engine.close(socket)
        }
    }

    func stopStarting() {
        schedule.stop()
        ring.stopStarting()
    }

    func ready(_ socket: BenchSocket, now: UInt64) {
        guard pool.contains(socket.index) else { return }
        inTransit -= 1
    }

    func reply(_ kind: RequestKind, on socket: BenchSocket, fields: FrameFields, now: UInt64) {
        ring.reply(kind, on: socket, fields: fields, now: now)
    }

    func push(_ kind: PushKind, on socket: BenchSocket, fields: FrameFields, now: UInt64) {
        guard ring.covers(socket.index) else {
            engine.metrics.error("UNEXPECTED_PUSH")
            return
        }
        ring.push(kind, on: socket, fields: fields, now: now)
    }

    func closed(_ socket: BenchSocket, now: UInt64) -> Bool {
        guard pool.contains(socket.index) else { return ring.closed(socket, now: now) }
        engine.reopen(socket)
        return true
    }

    /// Also retries pool sockets whose reconnect failed, so the pool does not shrink.
    func abandonStalled(now: UInt64, limit: UInt64) {
        ring.abandonStalled(now: now, limit: limit)
        for index in pool where engine.sockets[index].state == .closed || engine.sockets[index].state == .failed {
            let socket = engine.sockets[index]
            if now - socket.openedAt > limit {
                socket.state = .closed
                engine.reopen(socket)
            }
        }
    }

    func progressText(elapsedSeconds: Double) -> String {
        let counts = engine.metrics.counts
        return ring.progressText(elapsedSeconds: elapsedSeconds)
            + " reconnects \(counts.reconnects) (\(Int(Double(counts.reconnects) / elapsedSeconds))/s)"
    }

    private func nextReadyPoolSocket() -> BenchSocket? {
        guard !pool.isEmpty else { return nil }
        for _ in 0..<pool.count {
            let socket = engine.sockets[next]
            next = next + 1 == pool.upperBound ? pool.lowerBound : next + 1
            if socket.state == .ready { return socket }
        }
        return nil
    }
}
