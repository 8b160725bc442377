import CallGateProtocol
import Foundation

/// `group`: groups of `groupSize` users (`bench-g0` = u0..u(G-1), ...). The first member rings
/// the group at a fixed total rate; once every other member got `onIncomingCallReceived`, the
/// caller cancels, and the group rings again once every member heard the cancel. Measures each
/// `delivery` and the `fanout` completion. Service thread of the bench loop.
final class GroupDriver: ScenarioDriver {
    private unowned let engine: BenchEngine
    private let groupSize: Int
    private var groups: [GroupRing]
    private var idle: IdleRotation
    private var schedule: StartSchedule

    init(engine: BenchEngine, groupCount: Int, groupSize: Int, rate: Double) {
        self.engine = engine
        self.groupSize = groupSize
        schedule = StartSchedule(rate: rate)
        groups = Array(repeating: GroupRing(), count: groupCount)
        idle = IdleRotation(count: groupCount)
    }

    var tickMicroseconds: Int64 { 1_000 }

    var isDrained: Bool { idle.busyCount == 0 }

    func start(now: UInt64) {
        schedule.begin(now: now)
    }

    func tick(now: UInt64) {
        let due = schedule.due(now: now, skipped: &engine.metrics.counts.skipped)
        for _ in 0..<due {
            guard let group = nextIdleGroup() else {
                engine.metrics.counts.skipped += 1
                continue
            }
            ring(group, now: now)
        }
    }

    func stopStarting() {
        schedule.stop()
    }

    func ready(_ socket: BenchSocket, now: UInt64) {}

    func reply(_ kind: RequestKind, on socket: BenchSocket, fields: FrameFields, now: UInt64) {
        let group = socket.index / groupSize
        guard group < groups.count, groups[group].stage != .idle else { return }
        switch kind {
        case .initiate:
            guard fields.hasResult else {
                finishRing(group)
                return
            }
            engine.metrics.counts.initiateAccepted += 1
            _ = groups[group].call.owns(fields)
        case .cancel:
            groups[group].gotCancelReply = true
            if !fields.hasResult { groups[group].cancelled = groupSize - 1 }
            completeIfDone(group)
        default:
            break
        }
    }

    func push(_ kind: PushKind, on socket: BenchSocket, fields: FrameFields, now: UInt64) {
        let group = socket.index / groupSize
        guard group < groups.count, groups[group].stage != .idle, groups[group].call.owns(fields) else { return }
        switch (kind, groups[group].stage) {
        case (.incomingCallReceived, .ringing):
            engine.metrics.record(.delivery, from: groups[group].initiateSentAt, to: now)
            engine.metrics.counts.deliveries += 1
            groups[group].delivered += 1
            if groups[group].delivered == groupSize - 1 {
                engine.metrics.record(.fanout, from: groups[group].initiateSentAt, to: now)
                engine.metrics.counts.fanouts += 1
                groups[group].stage = .cancelling
                engine.send(RequestFrames.cancel(sessionId: groups[group].call.current), on: callerSocket(group))
            }
        case (.incomingCallCanceled, .cancelling):
            engine.metrics.counts.cancelled += 1
            groups[group].cancelled += 1
            completeIfDone(group)
        default:
            engine.metrics.error("UNEXPECTED_PUSH")
        }
    }

    func closed(_ socket: BenchSocket, now: UInt64) -> Bool {
        let group = socket.index / groupSize
        if group < groups.count, groups[group].stage != .idle { finishRing(group) }
        return false
    }

    func abandonStalled(now: UInt64, limit: UInt64) {
        for group in groups.indices where groups[group].stage != .idle && now - groups[group].initiateSentAt > limit {
            engine.metrics.error("STALLED")
            if groups[group].stage == .ringing, !groups[group].call.current.isEmpty {
                engine.send(RequestFrames.cancel(sessionId: groups[group].call.current), on: callerSocket(group))
            }
            finishRing(group)
        }
    }

    func progressText(elapsedSeconds: Double) -> String {
        let counts = engine.metrics.counts
        let p99 = engine.metrics.histogram(.fanout).milliseconds(atPercentile: 99)
        return "rings \(counts.fanouts) deliveries \(counts.deliveries) (\(Int(Double(counts.deliveries) / elapsedSeconds))/s) fan-out p99 \(String(format: "%.2f", p99)) ms"
    }

    private func callerSocket(_ group: Int) -> BenchSocket { engine.sockets[group * groupSize] }

    private func nextIdleGroup() -> Int? {
        idle.take { group in callerSocket(group).state == .ready }
    }

    private func ring(_ group: Int, now: UInt64) {
        if groups[group].initiateFrame.isEmpty {
            groups[group].initiateFrame = RequestFrames.initiate(receiverId: BenchConfiguration.groupID(group), receiverType: .group)
        }
        groups[group].stage = .ringing
        groups[group].call.current = []
        groups[group].delivered = 0
        groups[group].cancelled = 0
        groups[group].gotCancelReply = false
        groups[group].initiateSentAt = now
        engine.metrics.counts.initiated += 1
        engine.send(groups[group].initiateFrame, on: callerSocket(group))
    }

    private func completeIfDone(_ group: Int) {
        guard groups[group].gotCancelReply, groups[group].cancelled >= groupSize - 1 else { return }
        engine.metrics.counts.completed += 1
        finishRing(group)
    }

    private func finishRing(_ group: Int) {
        guard groups[group].stage != .idle else { return }
        groups[group].call.retire()
        groups[group].stage = .idle
        idle.giveBack(group)
    }
}

/// One group and its current ring: the caller (the group's first member) rings the others and
/// cancels once all of them got it. Service thread.
struct GroupRing {
    /// Where the current ring stands.
    enum Stage {
        /// No ring: may ring.
        case idle
        /// `initiateCall` sent; members are being reached.
        case ringing
        /// Every member got it; the caller sent `rejectCall` cancelled and waits for the reply
        /// and every member's `onIncomingCallCanceled`.
        case cancelling
    }

    var stage = Stage.idle
    /// The call it is in, by session id.
    var call = CallIdentity()
    var initiateSentAt: UInt64 = 0
    /// Members that got `onIncomingCallReceived` for the current ring.
    var delivered = 0
    /// Members that got `onIncomingCallCanceled` for it.
    var cancelled = 0
    var gotCancelReply = false
    /// The group's initiate frame, built on first use and sent for every ring.
    var initiateFrame: [UInt8] = []
}
