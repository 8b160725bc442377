/// Where a device stands in its user's push sequence, as a client keeps it: the epoch and
/// connection id of its last connect, the last push it saw, and while missed pushes are
/// replayed, how many are still to come. `point` is what the next connect sends as `recover`.
///
/// Shared by the clients: CallGateKit's `CallGateConnection` and the package's test client.
public struct PushPosition: Hashable, Sendable {
    /// What the next connect sends as `recover`; nil before a connect succeeded, or after one
    /// whose epoch or seq no `recover` could carry.
    public private(set) var point: RecoverParams?
    /// While missed pushes are replayed: how many are still to come, and the seq to move to
    /// after the last of them.
    private var replay: Replay?

    private struct Replay: Hashable, Sendable {
        var left: Int
        var resumeAt: UInt64
    }

    /// Nowhere yet: the first connect recovers nothing.
    public init() {}

    /// Takes up the sequence from a connect result: from its `seq`, or, when missed pushes
    /// follow it (`recover` was sent and the gateway still had them), from `recover.seq` until
    /// they are all in, so a drop in between loses none of those still to come.
    public mutating func follow(_ result: ConnectResult, recovering recover: RecoverParams?) {
        guard result.epoch.utf8.count <= RecoverParams.maxEpochLength, result.seq <= RecoverParams.maxSeq else {
            self = PushPosition()
            return
        }
        if let recover, let recovery = result.recovery, recovery.recovered, recovery.missed > 0 {
            point = RecoverParams(epoch: result.epoch, seq: recover.seq, connectionId: result.connectionId)
            replay = Replay(left: recovery.missed, resumeAt: result.seq)
        } else {
            point = RecoverParams(epoch: result.epoch, seq: result.seq, connectionId: result.connectionId)
            replay = nil
        }
    }

    /// Whether the push numbered `seq` is one not seen yet; moves the position past it. After
    /// the last missed push the position moves to the connect result's `seq`: the pushes in
    /// between were not for this device (its previous socket had the replies). A push with no
    /// seq, or one past what `recover` can carry, is new and not followed.
    public mutating func see(_ seq: UInt64?) -> Bool {
        guard let seq, seq <= RecoverParams.maxSeq, var point else { return true }
        guard seq > point.seq else { return false }
        point.seq = seq
        if var replay {
            replay.left -= 1
            if replay.left <= 0 {
                point.seq = max(seq, replay.resumeAt)
                self.replay = nil
            } else {
                self.replay = replay
            }
        }
        self.point = point
        return true
    }
}
