import CallGateProtocol
import Foundation

/// `ring`: pairs of users (u0 calls u1, u2 calls u3, ...) at a fixed rate of calls per second.
/// Each call is initiate, incoming, accept, end; a pair rings again only once both sides saw
/// the end. Measures `ring`, `accept` and `end`. Service thread of the bench loop.
final class RingDriver: ScenarioDriver {
    private unowned let engine: BenchEngine
    private let firstSocket: Int
    private var pairs: [RingPair]
    /// Pairs that may ring, used as a FIFO so every pair gets its turn.
    private var idle: IdleRotation
    private var schedule: StartSchedule

    /// Pairs over sockets `firstSocket ..< firstSocket + 2 * pairCount`, ringing at `rate` per second.
    init(engine: BenchEngine, firstSocket: Int, pairCount: Int, rate: Double) {
        self.engine = engine
        self.firstSocket = firstSocket
        schedule = StartSchedule(rate: rate)
        pairs = Array(repeating: RingPair(), count: pairCount)
        idle = IdleRotation(count: pairCount)
    }

    /// Whether socket `index` belongs to one of these pairs.
    func covers(_ index: Int) -> Bool {
        index >= firstSocket && index < firstSocket + 2 * pairs.count
    }

    var tickMicroseconds: Int64 { 1_000 }

    var isDrained: Bool { idle.busyCount == 0 }

    func start(now: UInt64) {
        schedule.begin(now: now)
    }

    func tick(now: UInt64) {
        let due = schedule.due(now: now, skipped: &engine.metrics.counts.skipped)
        for _ in 0..<due {
            guard let pair = nextIdlePair() else {
                engine.metrics.counts.skipped += 1
                continue
            }
            ring(pair, now: now)
        }
    }

    func stopStarting() {
        schedule.stop()
    }

    func ready(_ socket: BenchSocket, now: UInt64) {}

    func reply(_ kind: RequestKind, on socket: BenchSocket, fields: FrameFields, now: UInt64) {
        guard covers(socket.index) else { return }
        let pair = (socket.index - firstSocket) / 2
        switch (kind, pairs[pair].stage) {
        case (.initiate, .ringing), (.initiate, .accepting), (.initiate, .ending):
            guard fields.hasResult else {
                finishCall(pair)
                return
            }
            engine.metrics.counts.initiateAccepted += 1
            _ = pairs[pair].call.owns(fields)
        case (.accept, .accepting), (.accept, .ending):
            if !fields.hasResult { abort(pair) }
        case (.end, .ending):
            pairs[pair].gotEndReply = true
            if !fields.hasResult { pairs[pair].gotEndedPush = true }
            completeIfDone(pair)
        case (.end, .aborting):
            finishCall(pair)
        default:
            break
        }
    }

    func push(_ kind: PushKind, on socket: BenchSocket, fields: FrameFields, now: UInt64) {
        guard covers(socket.index) else { return }
        let pair = (socket.index - firstSocket) / 2
        let isCallee = (socket.index - firstSocket) % 2 == 1
        guard pairs[pair].stage != .idle, pairs[pair].call.owns(fields) else { return }
        switch (kind, isCallee, pairs[pair].stage) {
        case (.incomingCallReceived, true, .ringing):
            engine.metrics.record(.ring, from: pairs[pair].initiateSentAt, to: now)
            engine.metrics.counts.incoming += 1
            pairs[pair].stage = .accepting
            pairs[pair].acceptSentAt = now
            engine.send(RequestFrames.accept(sessionId: pairs[pair].call.current), on: socket)
        case (.outgoingCallAccepted, false, .accepting):
            engine.metrics.record(.accept, from: pairs[pair].acceptSentAt, to: now)
            engine.metrics.counts.accepted += 1
            pairs[pair].stage = .ending
            pairs[pair].endSentAt = now
            engine.send(RequestFrames.end(sessionId: pairs[pair].call.current), on: callerSocket(pair))
        case (.callEndedMessageReceived, true, .ending):
            engine.metrics.record(.end, from: pairs[pair].endSentAt, to: now)
            engine.metrics.counts.ended += 1
            pairs[pair].gotEndedPush = true
            completeIfDone(pair)
        case (.callEndedMessageReceived, true, .aborting):
            break
        default:
            engine.metrics.error("UNEXPECTED_PUSH")
            abort(pair)
        }
    }

    func closed(_ socket: BenchSocket, now: UInt64) -> Bool {
        guard covers(socket.index) else { return false }
        let pair = (socket.index - firstSocket) / 2
        if pairs[pair].stage != .idle { finishCall(pair) }
        return false
    }

    func abandonStalled(now: UInt64, limit: UInt64) {
        for pair in pairs.indices where pairs[pair].stage != .idle && now - pairs[pair].initiateSentAt > limit {
            engine.metrics.error("STALLED")
            if pairs[pair].stage != .aborting && !pairs[pair].call.current.isEmpty {
                engine.send(RequestFrames.end(sessionId: pairs[pair].call.current), on: callerSocket(pair))
            }
            finishCall(pair)
        }
    }

    func progressText(elapsedSeconds: Double) -> String {
        let counts = engine.metrics.counts
        let p99 = engine.metrics.histogram(.ring).milliseconds(atPercentile: 99)
        return "calls \(counts.completed) (\(Int(Double(counts.completed) / elapsedSeconds))/s) in flight \(idle.busyCount) ring p99 \(String(format: "%.2f", p99)) ms"
    }

    // MARK: one call

    private func callerSocket(_ pair: Int) -> BenchSocket { engine.sockets[firstSocket + 2 * pair] }
    private func calleeSocket(_ pair: Int) -> BenchSocket { engine.sockets[firstSocket + 2 * pair + 1] }

    private func nextIdlePair() -> Int? {
        idle.take { pair in callerSocket(pair).state == .ready && calleeSocket(pair).state == .ready }
    }

    private func ring(_ pair: Int, now: UInt64) {
        if pairs[pair].initiateFrame.isEmpty {
            let callee = BenchConfiguration.uid(firstSocket + 2 * pair + 1)
            pairs[pair].initiateFrame = RequestFrames.initiate(receiverId: callee, receiverType: .user)
        }
        pairs[pair].stage = .ringing
        pairs[pair].call.current = []
        pairs[pair].gotEndReply = false
        pairs[pair].gotEndedPush = false
        pairs[pair].initiateSentAt = now
        engine.metrics.counts.initiated += 1
        engine.send(pairs[pair].initiateFrame, on: callerSocket(pair))
    }

    private func completeIfDone(_ pair: Int) {
        guard pairs[pair].gotEndReply && pairs[pair].gotEndedPush else { return }
        engine.metrics.counts.completed += 1
        finishCall(pair)
    }

    /// Clears a call that went wrong: the caller ends it, and the pair waits for that reply.
    private func abort(_ pair: Int) {
        guard pairs[pair].stage != .aborting else { return }
        guard !pairs[pair].call.current.isEmpty, callerSocket(pair).state == .ready else {
            finishCall(pair)
            return
        }
        pairs[pair].stage = .aborting
        engine.send(RequestFrames.end(sessionId: pairs[pair].call.current), on: callerSocket(pair))
    }

    /// The pair is free again; pushes still on their way for this call are ignored.
    private func finishCall(_ pair: Int) {
        guard pairs[pair].stage != .idle else { return }
        pairs[pair].call.retire()
        pairs[pair].stage = .idle
        idle.giveBack(pair)
    }
}

/// One caller and one callee who ring each other, one call at a time. Service thread.
struct RingPair {
    /// Where the pair's current call stands.
    enum Stage {
        /// No call: may ring.
        case idle
        /// `initiateCall` sent; the callee has not been rung yet.
        case ringing
        /// The callee sent `acceptCall`; waiting for the caller to hear it.
        case accepting
        /// The caller sent `endCall`; waiting for its reply and the callee's push.
        case ending
        /// Something failed: the caller sent `endCall` to clear the call; waiting for its reply.
        case aborting
    }

    var stage = Stage.idle
    /// The call it is in, by session id.
    var call = CallIdentity()
    var initiateSentAt: UInt64 = 0
    var acceptSentAt: UInt64 = 0
    var endSentAt: UInt64 = 0
    var gotEndReply = false
    var gotEndedPush = false
    /// The initiate frame of this pair, built on first use and sent for every call.
    var initiateFrame: [UInt8] = []
}
