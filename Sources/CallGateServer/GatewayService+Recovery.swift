import CallGateCore
import CallGateProtocol
import LWS

/// A device that connects: registered with the Core and attached in the push history, its
/// connect reply, then the pushes it missed, replayed from the history when it asked with
/// `recover` and all of them are still kept. Service thread only.
extension GatewayService {
    /// How many sockets `uid` has connected (or, in cluster mode, on their way in), less the one
    /// `recover` names, which the new socket replaces rather than adds to.
    func devices(of uid: String, besides recover: RecoverParams?) -> Int {
        let devices = fabric.devices(of: uid)
        let arriving = fabric.arriving(uid)
        guard let previous = recover?.previousConnection, devices.contains(previous) else { return devices.count + arriving }
        return devices.count - 1 + arriving
    }

    /// Registers `connection` as `user`, replies with where the user's push sequence stands
    /// (and how the recovery went, when asked), then sends the missed pushes, in order, with
    /// their original `seq`, before any new push; the connection `recover` named, if still
    /// open, is closed with 4010. The replay waits for the store writes submitted so far, as
    /// the pushes it repeats may have. `recall` is what the fabric knows of the user's
    /// sequence; in cluster mode `elsewhere` are the calls of other nodes that concern the
    /// user: they join `activeCalls`, oldest first. `missedCalls` is the user's count of unseen
    /// missed calls, nil when it could not be read.
    func arrive(
        _ connection: ClientConnection, as user: User, recovering recover: RecoverParams?, elsewhere: [Call],
        recall: Recall, missedCalls: MissedCalls?, answering request: ReplyAddress
    ) {
        let id = connection.id
        let previous = recover?.previousConnection
        let outcome = core.connect(id, user: user, previous: previous)
        connection.uid = user.uid
        let replay = recall.missed.map { replayable($0, of: user.uid, skipping: previous, elsewhere: elsewhere) } ?? []
        let position = recall.position
        let recovery = recover.map { recover in
            recall.missed == nil
                ? Recovery(epoch: position.epoch, recovered: false, missed: 0)
                : Recovery(epoch: recover.epoch, recovered: true, missed: replay.count)
        }
        if let recovery {
            metrics.recovered(recovery.recovered, missed: recovery.missed)
        }
        let barrier = pipeline.latestBarrier
        // The calls it lists may have been written a moment ago: the answer waits for them.
        let listsCalls = (try? outcome.reply.get().activeCalls.isEmpty) == false
        send(outcome.mapReply { arrival in
            ConnectResult(
                user: user, connectionId: String(id.rawValue), serverTime: clock.nowMillis(),
                activeCalls: merged(arrival.activeCalls, elsewhere), tokenExpiresAt: connection.life.tokenExpiresAt,
                epoch: position.epoch, seq: position.seq, recovery: recovery, resumedSessions: arrival.resumedSessions,
                missedCalls: missedCalls)
        }, answering: request, after: listsCalls ? barrier : 0)
        for (seq, frame) in replay {
            output.emit(.frame(id, OutboundFrame(head: frame.head, seq: seq)), after: barrier)
        }
        fabric.admitted(connection, recall: recall, previous: previous, after: barrier)
        if case .success(let arrival) = outcome.reply, let replaced = arrival.replaced {
            retire(replaced)
        }
    }

    /// This node's calls and those of other nodes, each once, oldest first.
    private func merged(_ local: [Call], _ elsewhere: [Call]) -> [Call] {
        guard !elsewhere.isEmpty else { return local }
        let known = Set(local.map(\.sessionId))
        let others = elsewhere.filter { !known.contains($0.sessionId) }
        return (local + others).enumerated()
            .sorted { ($0.element.initiatedAt, $0.offset) < ($1.element.initiatedAt, $1.offset) }
            .map(\.element)
    }

    /// The missed pushes a device is sent: all but those its previous connection caused (it had
    /// the reply instead), and no ring for a call that no longer rings the user with nothing
    /// after it saying so: such a ring is replaced by the Core's cancel for it, or dropped when
    /// the call is forgotten, unless (cluster mode) another node's call of that id still rings
    /// (`elsewhere`).
    private func replayable(
        _ entries: [HistoryEntry], of uid: String, skipping previous: ConnectionID?, elsewhere: [Call]
    ) -> [(seq: UInt64, frame: HistoryFrame)] {
        let sent = entries.filter { previous == nil || $0.excluding != previous }
        var stoppedLater = Set<String>()
        var replay: [(seq: UInt64, frame: HistoryFrame)] = []
        for entry in sent.reversed() {
            switch entry.frame.event {
            case .onIncomingCallCanceled:
                stoppedLater.insert(entry.frame.sessionId)
            case .onIncomingCallReceived where !stoppedLater.contains(entry.frame.sessionId):
                switch core.ring(of: entry.frame.sessionId, for: uid) {
                case .ringing: break
                case .stopped(let cancel):
                    replay.append((entry.seq, HistoryFrame(cancel)))
                    continue
                case .forgotten:
                    let sessionId = entry.frame.sessionId
                    guard elsewhere.contains(where: { $0.sessionId == sessionId && $0.callStatus == .initiated }) else { continue }
                }
            default:
                break
            }
            replay.append((entry.seq, entry.frame))
        }
        return replay.reversed()
    }

    /// Closes with 4010 a connection a newer one of its device replaced; the Core forgot it
    /// already, so its close ends nothing.
    private func retire(_ replaced: ConnectionID) {
        guard let old = hub[replaced] else { return }
        fabric.departed(old)
        old.uid = nil
        logger.info("replaced", metadata: ["connection": "\(replaced)", "client": "\(old.clientAddress)"])
        output.emit(.close(replaced, code: CloseCode.replaced, reason: "replaced by a newer connection of this device"))
    }
}

extension RecoverParams {
    /// The connection `connectionId` names, nil when none is named.
    var previousConnection: ConnectionID? {
        connectionId.flatMap { UInt64($0) }.map(ConnectionID.init)
    }
}
