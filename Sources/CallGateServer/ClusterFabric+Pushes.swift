import CallGateCluster
import CallGateCore
import CallGateProtocol
import LWS

/// Cluster mode: pushes follow the user, numbered once for the whole cluster.
///
/// The owner of a call hands each push to Redis once per user (`Fabric.publish`, then
/// `publish(_:to:)`): one script numbers it in the user's sequence, keeps it in their stream and
/// publishes it on their channel, so every node holding a device of that user, the owner too,
/// gets a user's pushes in the order of their numbers (`received`). Each connection keeps its
/// position in the sequence and takes only the next push (`offer`, `advance`); one that missed
/// pushes is closed with 4011 and recovers from the stream (`+Recovery`); one whose node may
/// have missed pushes with no later one to show it is found by `+SequenceChecks`. Pushes wait
/// in order while Redis is away. Service thread only.
extension ClusterFabric {
    /// A push on the channel of `uid`, numbered by Redis for the node that owns its call (this
    /// one too): offered to `uid`'s devices here, and held for those on their way in. Each
    /// device is announced to the owner the first time, so that it counts the user as present
    /// while a device of theirs is here. A push about an event this version does not know
    /// only moves the devices' positions past it.
    func received(_ message: ClusterMessage, forUser uid: String) {
        guard case .push(let origin, let excluding, _, _, let epoch, let seq, _) = message else { return }
        let entry = HistoryEntry(message)
        if let entry, arrivals.counts[uid] != nil {
            arrivals.pushes.hold(entry, epoch: epoch, for: uid)
        }
        var reached = 0
        for id in devices(of: uid) {
            guard let connection = hub[id] else { continue }
            if id.rawValue != excluding, !connection.knownTo.contains(origin) {
                announce(connection, to: origin)
            }
            guard let entry else {
                _ = advance(connection, to: seq, in: epoch)
                continue
            }
            if offer(entry, in: epoch, to: connection) {
                reached += 1
            }
        }
        if let entry, reached > 0 {
            metrics.pushesDelivered(entry.frame.event, count: reached)
        }
    }

    /// Gives `connection` the push `entry` of sequence `epoch` if it is the next of its
    /// sequence (see `advance`); a push it caused, or that `previous` caused, is passed over:
    /// it had the reply. Returns whether it was handed to the socket.
    func offer(
        _ entry: HistoryEntry, in epoch: String, to connection: ClientConnection, skipping previous: ConnectionID? = nil,
        after barrier: UInt64 = 0
    ) -> Bool {
        guard advance(connection, to: entry.seq, in: epoch, after: barrier), entry.excluding != connection.id,
              previous == nil || entry.excluding != previous else { return false }
        let numbered = OutboundFrame(head: entry.frame.head, seq: entry.seq)
        let (reached, written) = output.hand(numbered, to: [connection.id], excluding: nil, after: barrier)
        metrics.framesSent(written)
        return reached > 0
    }

    /// Moves `connection`'s position to push `seq` of sequence `epoch` when that is the next
    /// one, and says so. A push at or before the position it read at `connect` came late and
    /// is ignored; any other push that is not the next (another epoch, a gap, a seq gone back:
    /// Redis lost the sequence, or this node's subscription missed pushes) closes it with 4011,
    /// so that it reconnects and recovers from the stream.
    func advance(_ connection: ClientConnection, to seq: UInt64, in epoch: String, after barrier: UInt64 = 0) -> Bool {
        guard let position = connection.sequence else { return false }
        if position.epoch == epoch, seq == position.seq + 1 {
            connection.sequence?.seq = seq
            return true
        }
        if position.epoch == epoch, seq <= connection.sequenceFloor {
            return false
        }
        breakSequence(of: connection, at: HistoryPosition(epoch: epoch, seq: seq), after: barrier)
        return false
    }

    /// Closes `connection` with 4011 (after write `barrier`): its user's sequence stands at
    /// `current`, which is not where the device can go on from, so it reconnects and recovers
    /// from the stream what it missed (or learns that it must rebuild).
    func breakSequence(of connection: ClientConnection, at current: HistoryPosition, after barrier: UInt64 = 0) {
        guard let position = connection.sequence else { return }
        connection.sequence = nil
        logger.info(
            "push sequence broken",
            metadata: ["connection": "\(connection.id)", "had": "\(position.epoch) \(position.seq)", "got": "\(current.epoch) \(current.seq)"])
        output.emit(.close(connection.id, code: CloseCode.sequenceBroken, reason: "push sequence broken: reconnect with recover"), after: barrier)
    }

    /// Hands the push of `delivery` (`frame`) to Redis once per user, after write `barrier`,
    /// which numbers and publishes it for their devices on every node, this one too.
    func publish(_ delivery: Delivery, _ frame: HistoryFrame, after barrier: UInt64) -> Bool {
        let push = ClusterPush(frame, from: cluster.nodeID, excluding: delivery.excluding)
        let fence = OutputFence<HeldOutput, String>(subject: delivery.push.sessionId, instead: nil)
        for uid in delivery.users {
            output.emit(.publish(uid: uid, push), after: barrier, fence: fence)
        }
        return true
    }

    /// Hands `push` to Redis, which numbers, keeps and publishes it for every device of `uid`;
    /// while Redis cannot be reached, or this node may not speak for its calls (`mayPublish`),
    /// it waits in `unsentPushes` (and so does every push after it), to go once Redis is back
    /// and the node knows which calls are still its own. A push whose answer was lost may have
    /// been published: it is not sent again (logged).
    func publish(_ push: ClusterPush, to uid: String) {
        guard mayPublish() else {
            standing.registerPending = true
            keepUnsent(push, to: uid)
            return
        }
        guard unsentPushes.isEmpty else {
            keepUnsent(push, to: uid)
            return
        }
        cluster.pushes.append(push.parts, toUser: uid) { [weak self] result in
            guard let self, case .failure(let failure) = result else { return }
            if case .notConnected = failure {
                keepUnsent(push, to: uid)
            } else {
                logger.warning("push may not have been published", metadata: ["uid": "\(uid)", "error": "\(failure)"])
            }
        }
    }

    /// Sends the pushes that waited for Redis, in order (once its connection is back and this
    /// node knows which of its calls are still its own, see `registerAgain`).
    func publishUnsent() {
        let waiting = unsentPushes
        unsentPushes.removeAll()
        if !waiting.isEmpty {
            logger.info("pushes that waited for Redis published", metadata: ["pushes": "\(waiting.count)"])
        }
        for (uid, push) in waiting {
            publish(push, to: uid)
        }
    }

    /// Whether this node may hand pushes to Redis now: not while it is suspended, nor once back
    /// until `reconcile` let go of the calls a survivor took over meanwhile. A push held for the
    /// store across a freeze (its commit answered only after the process ran again) would
    /// otherwise be numbered after what the new owner said of the call since; kept unsent, it
    /// is dropped with the call it tells of (`letGo`) or published by `registerAgain`, which
    /// `reconcile` then runs.
    private func mayPublish() -> Bool {
        cluster.membership.checkSuspension()
        return !standing.wasSuspended && !standing.reconciling
    }

    private func keepUnsent(_ push: ClusterPush, to uid: String) {
        if unsentPushes.count >= configuration.maxHeldOutput {
            unsentPushes.removeFirst()
            logger.warning("push dropped: too many wait for Redis", metadata: ["uid": "\(uid)"])
        }
        unsentPushes.append((uid, push))
    }
}
