import CallGateCluster
import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// Cluster mode: ops go to the node that owns their call, and pushes follow the user.
///
/// An op on a call or session that this node neither runs nor remembers is looked up in Redis
/// (`CallOwners`) and, when another node owns it, forwarded there as the frame the device sent,
/// with the device's user; the owner runs it as a device of its own (`GatewayCore.admitRemote`)
/// and its reply comes back to be written to the socket. An op whose owner does not answer in
/// `forwardTimeout` gets `ERR_CALL_OWNER_UNREACHABLE`. The owner hands each push to Redis once
/// per user (`+Output`), which numbers it in the user's sequence, keeps it in their stream and
/// publishes it; every node holding a device of that user, the owner too, writes it to its
/// devices. Service thread only.
extension GatewayService {
    /// Runs `local` when the call or session `sessionId` is this node's to answer (it runs or
    /// remembers it, no node owns it, the op came forwarded already, or the id is malformed),
    /// else forwards `bytes`,
    /// the op as `connection` sent it, to the node that owns it. `claiming`: a `joinSession`,
    /// which makes a session that no node owns this node's.
    func route(
        _ sessionId: String, claiming: Bool = false, bytes: [UInt8], from connection: ClientConnection,
        answering request: ReplyAddress, local: @escaping () -> Void
    ) {
        // A malformed id (which the Core refuses) is never looked up in Redis.
        guard let cluster, request.forward == nil, SessionIDFormat.isValid(sessionId), !core.knows(sessionId) else {
            local()
            return
        }
        let found: (Result<String?, RedisFailure>) -> Void = { [self] result in
            guard connections[connection.id] === connection, connection.isConnected else { return }
            switch result {
            case .success(let owner?) where owner != cluster.nodeID && !core.knows(sessionId):
                forward(bytes, from: connection, to: owner, answering: request)
            case .success:
                local()
            case .failure(let failure):
                fail(request, code: .callOwnerUnreachable, message: "could not learn which node owns \(sessionId): \(failure)")
            }
        }
        if claiming {
            cluster.owners.claim(sessionId, then: found)
        } else {
            cluster.owners.owner(of: sessionId, then: found)
        }
    }

    /// Sends the op `bytes` of `connection` to node `owner`, and waits for its answer.
    private func forward(_ bytes: [UInt8], from connection: ClientConnection, to owner: String, answering request: ReplyAddress) {
        guard let cluster, let userJSON = core.user(of: connection.id)?.clusterJSON else {
            return
        }
        let timeout = configuration.cluster?.forwardTimeout ?? .seconds(2)
        let deadline = clock.monotonicMillis() + timeout.wholeMilliseconds
        let ticket = forwards.open(connection.id, requestID: request.requestID, owner: owner, deadline: deadline)
        if forwards.nextDeadline == deadline {
            armForwardTimer()
        }
        connection.knownTo.insert(owner)
        metrics.opForwarded()
        let message = ClusterMessage.forward(
            ticket: ticket, from: cluster.nodeID, connection: connection.id.rawValue, user: userJSON, frame: bytes)
        cluster.bus.send(message, toNode: owner) { [self] result in
            let problem: String? = switch result {
            case .success(let reply) where (reply.integer ?? 0) > 0: nil
            case .success(.integer): "node \(owner), which owns this call, is not listening"
            case .success(let reply): "Redis refused to forward the op (\(reply))"
            case .failure(let failure): "the op could not be forwarded to node \(owner): \(failure)"
            }
            guard let problem, let pending = forwards.close(ticket) else { return }
            unanswered(pending, because: problem)
        }
    }

    /// Fails every forwarded op whose owner did not answer in time; re-arms for the next one.
    func expireForwards() {
        for pending in forwards.expire(now: clock.monotonicMillis()) {
            let timeout = configuration.cluster?.forwardTimeout ?? .seconds(2)
            let waited = pending.held ? "\(Self.heldAnswerBound) for its held answer" : "\(timeout)"
            unanswered(pending, because: "node \(pending.owner), which owns this call, did not answer within \(waited); the op may or may not have been done")
        }
        armForwardTimer()
    }

    /// How long a forwarded op waits once its owner said the answer waits for its store.
    static let heldAnswerBound: Duration = .seconds(60)

    /// Sets the forward timer to the earliest deadline of the ops waiting, if any.
    private func armForwardTimer() {
        if let next = forwards.nextDeadline {
            forwardTimer.schedule(afterMicroseconds: max(0, next - clock.monotonicMillis()) * 1000)
        }
    }

    /// Tells the node that forwarded an op here that its answer waits for this node's store
    /// (PostgreSQL may be restarting), so that it waits on instead of giving up at its timeout.
    func tellHeld(_ forward: ForwardTicket) {
        cluster?.bus.send(.held(ticket: forward.number), toNode: forward.node) { [logger] result in
            if case .failure(let failure) = result {
                logger.warning("word of a held answer lost", metadata: ["node": "\(forward.node)", "error": "\(failure)"])
            }
        }
    }

    private func unanswered(_ pending: ForwardedRequests.Pending, because problem: String) {
        metrics.forwardFailed()
        fail(ReplyAddress(requestID: pending.requestID, connection: pending.connection, barrier: 0), code: .callOwnerUnreachable, message: problem)
    }

    /// A message on this node's channel.
    func received(_ message: ClusterMessage) {
        switch message {
        case .forward(let ticket, let node, let connection, let user, let frame):
            runForwarded(frame, of: ConnectionID(connection), as: user, answering: ForwardTicket(node: node, number: ticket))
        case .answer(let ticket, let frame):
            guard let pending = forwards.close(ticket), connections[pending.connection] != nil else { return }
            emit(.frame(pending.connection, OutboundFrame(frame)))
        case .held(let ticket):
            forwards.hold(ticket, until: clock.monotonicMillis() + Self.heldAnswerBound.wholeMilliseconds)
            armForwardTimer()
        case .present(let node, let connection, let userJSON):
            let id = ConnectionID(connection)
            guard connections[id] == nil, let user = User(clusterJSON: userJSON) else { return }
            remoteConnections[id] = node
            core.admitRemote(id, as: user)
            armCoreTimer(at: core.nextDeadline)
        case .lookFor(let node, let uid):
            for id in localConnections(of: uid) {
                if let connection = connections[id] {
                    announce(connection, to: node)
                }
            }
        case .departed(let connection):
            let id = ConnectionID(connection)
            guard remoteConnections.removeValue(forKey: id) != nil else { return }
            forgetRemote(id)
        case .push, .groupChanged, .probe:
            return
        }
    }

    /// Runs an op that device `connection` of node `forward.node` sent, on a call this node owns.
    private func runForwarded(_ bytes: [UInt8], of connection: ConnectionID, as userJSON: [UInt8], answering forward: ForwardTicket) {
        guard connections[connection] == nil, let user = User(clusterJSON: userJSON) else {
            logger.warning("malformed forwarded op dropped", metadata: ["node": "\(forward.node)", "connection": "\(connection)"])
            return
        }
        let frame: RequestFrame
        do {
            frame = try RequestFrame.decode(bytes)
        } catch {
            let reply = ReplyFrame.failure(id: error.id, code: .badRequest, message: error.message)
            emit(.answer(forward, connection: connection, frame: Array(reply)))
            return
        }
        let request = address(frame.id, on: connection, concerning: frame.request.sessionId, forward: forward)
        guard frame.request.isForwardable else {
            fail(request, code: .badRequest, message: "only ops on a call or session are forwarded")
            return
        }
        remoteConnections[connection] = forward.node
        core.admitRemote(connection, as: user)
        if !mayRunCalls() {
            fail(request, code: .clusterUnavailable, message: "the node that owns this call is cut off from the cluster; try again shortly")
            return
        }
        if frame.request.writesCallLog, let backlog = storeBacklog() {
            fail(request, code: .storeUnavailable, message: backlog)
            return
        }
        dispatch(frame.request, answering: request)
    }

    /// A push on the channel of `uid`, numbered by Redis for the node that owns its call (this
    /// one too): offered to `uid`'s devices here, and held for those on their way in. Each
    /// device is announced to the owner the first time, so that it counts the user as present
    /// while a device of theirs is here. A push about an event this version does not know
    /// only moves the devices' positions past it.
    func received(_ message: ClusterMessage, forUser uid: String) {
        guard case .push(let origin, let excluding, _, _, let epoch, let seq, _) = message else { return }
        let entry = HistoryEntry(message)
        if let entry, arrivals[uid] != nil {
            arrivingPushes.hold(entry, epoch: epoch, for: uid)
        }
        var reached = 0
        for id in localConnections(of: uid) {
            guard let connection = connections[id] else { continue }
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
        let numbered = OutboundFrame(entry.frame.head, PushFrame.tail(seq: entry.seq))
        let (reached, written) = hand(numbered, to: [connection.id], excluding: nil, after: barrier)
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
        connection.sequence = nil
        logger.info(
            "push sequence broken",
            metadata: ["connection": "\(connection.id)", "had": "\(position.epoch) \(position.seq)", "got": "\(epoch) \(seq)"])
        emit(.close(connection.id, code: CloseCode.sequenceBroken, reason: "push sequence broken: reconnect with recover"), after: barrier)
        return false
    }

    /// Hands `push` to Redis, which numbers, keeps and publishes it for every device of `uid`;
    /// while Redis cannot be reached it waits in `unsentPushes` (and so does every push after
    /// it), to go once Redis is back. A push whose answer was lost may have been published: it
    /// is not sent again (logged).
    func publish(_ push: ClusterPush, to uid: String) {
        guard let cluster else { return }
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

    private func keepUnsent(_ push: ClusterPush, to uid: String) {
        if unsentPushes.count >= configuration.maxHeldOutput {
            unsentPushes.removeFirst()
            logger.warning("push dropped: too many wait for Redis", metadata: ["uid": "\(uid)"])
        }
        unsentPushes.append((uid, push))
    }

    /// Puts back in Redis the push sequence of every user with a device here, as this node last
    /// saw it, for a Redis that lost them (restarted empty): their devices go on, instead of
    /// all finding their sequence broken at the next push.
    func restoreSequences() {
        guard let cluster else { return }
        var positions: [String: HistoryPosition] = [:]
        for connection in connections.values {
            guard let uid = connection.uid, let position = connection.sequence else { continue }
            if let known = positions[uid], known.seq >= position.seq { continue }
            positions[uid] = position
        }
        for (uid, position) in positions {
            cluster.pushes.restore(uid, epoch: position.epoch, seq: position.seq)
        }
    }

    /// Tells node `node`, which owns a call of `connection`'s user, that this device is here:
    /// the user is present (no grace period runs for them there) until it departs.
    func announce(_ connection: ClientConnection, to node: String) {
        guard let cluster, node != cluster.nodeID, connection.knownTo.insert(node).inserted,
              let userJSON = core.user(of: connection.id)?.clusterJSON else { return }
        let message = ClusterMessage.present(from: cluster.nodeID, connection: connection.id.rawValue, user: userJSON)
        cluster.bus.send(message, toNode: node) { _ in }
    }

    /// Tells the nodes that run `connection` as one of theirs that it is gone.
    func depart(_ connection: ClientConnection) {
        guard let cluster else { return }
        for node in connection.knownTo {
            cluster.bus.send(.departed(connection: connection.id.rawValue), toNode: node) { _ in }
        }
        connection.knownTo.removeAll()
    }

    /// A device of another node that this node ran is gone.
    private func forgetRemote(_ id: ConnectionID) {
        let uid = core.user(of: id)?.uid
        send(core.disconnect(id, runningTimers: mayRunCalls()))
        if let uid {
            lookForOtherDevices(of: uid)
        }
    }

    /// A device of `uid` that this node ran went: when it was the last one it knew of and `uid`
    /// has calls here, the other nodes holding a device of theirs (but those whose lease lapsed)
    /// are asked to announce it, well before the grace period that started would end their calls.
    func lookForOtherDevices(of uid: String) {
        guard let cluster, core.connections(of: uid).isEmpty, !core.activeCalls(of: uid).isEmpty else { return }
        cluster.presence.nodes(holding: uid) { nodes in
            for node in nodes where !cluster.membership.lapsedNodes.contains(node) {
                cluster.bus.send(.lookFor(from: cluster.nodeID, uid: uid), toNode: node) { _ in }
            }
        }
    }

    /// The first device of `user` on this node is registered: the node says so in Redis.
    func userArrived(_ user: User) {
        guard localConnections(of: user.uid).count == 1 else { return }
        markPresent(user)
    }

    /// Says in Redis that this node holds a device of `user`, with their profile.
    func markPresent(_ user: User) {
        guard let cluster, let profile = user.clusterJSON else { return }
        cluster.presence.arrived(user.uid, profile: profile)
    }

    /// Once no device of `uid` is left here (nor on its way in), stops listening to their pushes
    /// and says so in Redis.
    func userLeft(_ uid: String) {
        guard let cluster, arrivals[uid] == nil, localConnections(of: uid).isEmpty else { return }
        cluster.bus.stopListening(to: uid)
        cluster.presence.left(uid)
    }

    /// The heartbeat saw the live nodes and those whose lease lapsed: ops forwarded to nodes
    /// that are gone (lapsed, or live at the last heartbeat and no longer) get
    /// `ERR_CALL_OWNER_UNREACHABLE`, and their devices depart. A node that joined
    /// since the last heartbeat is neither, and keeps its devices.
    func sawNodes(live nodes: [String], lapsed: [String]) {
        let live = Set(nodes)
        let gone = liveNodes.subtracting(live).union(lapsed)
        liveNodes = live
        guard !gone.isEmpty else { return }
        for pending in forwards.abandon(owners: gone) {
            unanswered(pending, because: "node \(pending.owner), which owns this call, left the cluster before answering; the op may or may not have been done")
        }
        guard !remoteConnections.isEmpty else { return }
        for (id, node) in remoteConnections where gone.contains(node) {
            remoteConnections[id] = nil
            forgetRemote(id)
        }
    }
}
