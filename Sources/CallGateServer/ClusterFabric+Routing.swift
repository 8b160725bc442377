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
/// `forwardTimeout` gets `ERR_CALL_OWNER_UNREACHABLE`. Pushes follow the user through Redis
/// (`+Pushes`). Service thread only.
extension ClusterFabric {
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
        guard request.forward == nil, SessionIDFormat.isValid(sessionId), !core.knows(sessionId) else {
            local()
            return
        }
        let found: (Result<String?, RedisFailure>) -> Void = { [self] result in
            guard hub[connection.id] === connection, connection.isConnected else { return }
            switch result {
            case .success(let owner?) where owner != cluster.nodeID && !core.knows(sessionId):
                forward(bytes, from: connection, to: owner, answering: request)
            case .success:
                local()
            case .failure(let failure):
                output.fail(request, code: .callOwnerUnreachable, message: "could not learn which node owns \(sessionId): \(failure)")
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
        guard let userJSON = core.user(of: connection.id)?.clusterJSON else {
            return
        }
        connection.knownTo.insert(owner)
        send(.device(connection.id, requestID: request.requestID), to: owner) { ticket in
            .forward(ticket: ticket, from: cluster.nodeID, connection: connection.id.rawValue, user: userJSON, frame: bytes)
        }
    }

    /// Sends the op `message` makes of its ticket to node `owner`, for `asker`, and waits for
    /// its answer.
    func send(_ asker: ForwardedRequests.Asker, to owner: String, _ message: (UInt64) -> ClusterMessage) {
        let deadline = clock.monotonicMillis() + forwardTimeout.wholeMilliseconds
        let ticket = forwards.open(asker, owner: owner, deadline: deadline)
        if forwards.nextDeadline() == deadline {
            armForwardTimer()
        }
        metrics.cluster.opForwarded()
        cluster.bus.send(message(ticket), toNode: owner) { [self] result in
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
            let waited = pending.held ? "\(Self.heldAnswerBound) for its held answer" : "\(forwardTimeout)"
            unanswered(pending, because: "node \(pending.owner), which owns this call, did not answer within \(waited); the op may or may not have been done")
        }
        armForwardTimer()
    }

    /// How long a forwarded op waits for its owner's answer (`--cluster-forward-timeout`).
    private var forwardTimeout: Duration {
        configuration.cluster?.forwardTimeout ?? .seconds(2)
    }

    /// How long a forwarded op waits once its owner said the answer waits for its store.
    static let heldAnswerBound: Duration = .seconds(60)

    /// Sets the forward timer to the earliest deadline of the ops waiting, if any.
    private func armForwardTimer() {
        if let next = forwards.nextDeadline() {
            timers.forward.schedule(afterMicroseconds: max(0, next - clock.monotonicMillis()) * 1000)
        }
    }

    /// Tells the node that forwarded an op here that its answer waits for this node's store
    /// (PostgreSQL may be restarting), so that it waits on instead of giving up at its timeout.
    func tellHeld(_ forward: ForwardTicket) {
        cluster.bus.send(.held(ticket: forward.number), toNode: forward.node) { [logger] result in
            if case .failure(let failure) = result {
                logger.warning("word of a held answer lost", metadata: ["node": "\(forward.node)", "error": "\(failure)"])
            }
        }
    }

    private func unanswered(_ pending: ForwardedRequests.Pending, because problem: String) {
        metrics.cluster.forwardFailed()
        switch pending.asker {
        case .device(let connection, let requestID):
            output.fail(ReplyAddress(requestID: requestID, connection: connection), code: .callOwnerUnreachable, message: problem)
        case .admin(let exchange):
            output.emit(.http(exchange, .error(504, .callOwnerUnreachable, problem)))
        case .node(let answered):
            answered(.error(504, .callOwnerUnreachable, problem))
        }
    }

    /// A message on this node's channel.
    func received(_ message: ClusterMessage) {
        switch message {
        case .forward(let ticket, let node, let connection, let user, let frame):
            runForwarded(frame, of: ConnectionID(connection), as: user, answering: ForwardTicket(node: node, number: ticket))
        case .answer(let ticket, let frame):
            switch forwards.close(ticket)?.asker {
            case .device(let connection, _)? where hub[connection] != nil:
                output.emit(.frame(connection, OutboundFrame(frame)))
            case .admin(let exchange)?:
                output.emit(.http(exchange, HTTPResponse(envelope: frame)))
            case .node(let answered)?:
                answered(HTTPResponse(envelope: frame))
            default:
                return
            }
        case .command(let ticket, let node, let body):
            runCommand(body, answering: ForwardTicket(node: node, number: ticket))
        case .held(let ticket):
            forwards.hold(ticket, until: clock.monotonicMillis() + Self.heldAnswerBound.wholeMilliseconds)
            armForwardTimer()
        case .present, .lookFor, .departed, .renew, .unknown:
            receivedPresence(message)
        case .live(let node, let run):
            cluster.membership.heard(run: run, of: node)
        case .push, .groupChanged, .webhooksChanged, .probe:
            return
        }
    }

    /// Runs an op that device `connection` of node `forward.node` sent, on a call this node owns.
    private func runForwarded(_ bytes: [UInt8], of connection: ConnectionID, as userJSON: [UInt8], answering forward: ForwardTicket) {
        guard hub[connection] == nil, let user = User(clusterJSON: userJSON) else {
            logger.warning("malformed forwarded op dropped", metadata: ["node": "\(forward.node)", "connection": "\(connection)"])
            return
        }
        let frame: RequestFrame
        do {
            frame = try RequestFrame.decode(bytes)
        } catch {
            let reply = ReplyFrame.failure(id: error.id, code: .badRequest, message: error.message)
            output.emit(.answer(forward, connection: connection, frame: Array(reply)))
            return
        }
        let request = ReplyAddress(
            requestID: frame.id, connection: connection, sessionId: frame.request.sessionId, forward: forward,
            timing: OpTiming(op: frame.request.op, since: .now))
        guard frame.request.isForwardable else {
            output.fail(request, code: .badRequest, message: "only ops on a call or session are forwarded")
            return
        }
        remoteDevices.admit(connection, of: forward.node, now: clock.monotonicMillis())
        core.admitRemote(connection, as: user)
        if !mayRunCalls() {
            output.fail(request, code: .clusterUnavailable, message: "the node that owns this call is cut off from the cluster; try again shortly")
            return
        }
        if frame.request.writesCallLog, let backlog = service.storeBacklog() {
            output.fail(request, code: .storeUnavailable, message: backlog)
            return
        }
        service.dispatch(frame.request, answering: request)
    }

    /// The heartbeat saw the live nodes and those whose lease lapsed: ops forwarded to nodes
    /// that are gone (lapsed, or live at the last heartbeat and no longer) get
    /// `ERR_CALL_OWNER_UNREACHABLE`, their devices depart, and this node's devices count as
    /// announced to them no longer (a node back under the same id hears of them again). A node
    /// that joined since the last heartbeat is neither, and keeps its devices.
    func sawNodes(live nodes: [String], lapsed: [String]) {
        let live = Set(nodes)
        let gone = liveNodes.subtracting(live).union(lapsed)
        liveNodes = live
        guard !gone.isEmpty else { return }
        for connection in hub.connections.values where !connection.knownTo.isDisjoint(with: gone) {
            connection.knownTo.subtract(gone)
        }
        for pending in forwards.abandon(owners: gone) {
            unanswered(pending, because: "node \(pending.owner), which owns this call, left the cluster before answering; the op may or may not have been done")
        }
        for id in remoteDevices.remove(heldBy: gone) {
            forgetRemote(id)
        }
    }
}
