import CallGateCore
import CallGateProtocol
import LWS

/// The fabric of one process: every call runs here, every device of a user is a socket here,
/// and each user's pushes are numbered and kept in memory (`InMemoryPushHistory`) for the
/// devices that reconnect. The Core's own rules are the busy rules and the limits. Service
/// thread only.
final class LocalFabric: Fabric {
    /// Each user's recent pushes, numbered, while a device of theirs is attached.
    let history: InMemoryPushHistory
    private unowned var service: GatewayService!
    /// uid -> how many devices passed `connect`'s checks and wait for their user's missed-call
    /// count.
    private var arrivals: [String: Int] = [:]

    init(history: InMemoryPushHistory) {
        self.history = history
    }

    func attach(to service: GatewayService) {
        self.service = service
    }

    func leave() {}

    func unreadiness() -> String? { nil }

    func mayRunCalls() -> Bool { true }

    func devices(of uid: String) -> [ConnectionID] {
        service.core.connections(of: uid)
    }

    func arriving(_ uid: String) -> Int { arrivals[uid] ?? 0 }

    /// Once its user's missed-call count is read, attaches the user in the push history and
    /// recalls, from it, what the device missed; nothing when the socket closed meanwhile.
    func arrive(_ connection: ClientConnection, as claims: TokenClaims, recovering recover: RecoverParams?, answering request: ReplyAddress) {
        let uid = claims.user.uid
        arrivals[uid, default: 0] += 1
        service.readMissedCalls(of: uid) { [self] missedCalls in
            arrivals[uid] = arrivals[uid].flatMap { $0 > 1 ? $0 - 1 : nil }
            guard service.hub[connection.id] === connection else { return }
            history.attach(uid)
            let missed = recover.flatMap { history.entries(for: uid, after: HistoryPosition(epoch: $0.epoch, seq: $0.seq)) }
            service.admit(
                connection, as: claims, recovering: recover, recall: Recall(position: history.position(of: uid), missed: missed),
                missedCalls: missedCalls, answering: request)
        }
    }

    func admitted(_ connection: ClientConnection, recall: Recall, previous: ConnectionID?, after barrier: UInt64) {}

    func departed(_ connection: ClientConnection) {
        if let uid = connection.uid {
            history.detach(uid)
        }
    }

    func left(_ uid: String) {}

    func route(
        _ sessionId: String, claiming: Bool, bytes: [UInt8], from connection: ClientConnection,
        answering request: ReplyAddress, local: @escaping () -> Void
    ) {
        local()
    }

    func claimingUser(of request: ReplyAddress, then op: @escaping () -> Void) {
        op()
    }

    func claimingWaitingUser(of request: ReplyAddress, then op: @escaping () -> Void) {
        op()
    }

    func inviting(_ invitees: [String], of request: ReplyAddress, then op: @escaping (CalleesElsewhere) -> Void) {
        op(CalleesElsewhere())
    }

    func startingCall(
        of request: ReplyAddress, ringing: [String], initiate: @escaping (CalleesElsewhere) -> Outcome<Call>,
        then send: @escaping (Outcome<Call>) -> Void
    ) {
        send(initiate(CalleesElsewhere()))
    }

    func callees(of params: InitiateCallParams, from caller: String, anyGroup: Bool) -> [String] { [] }

    func startingServerCall(
        by initiator: String, ringing: [String], initiate: @escaping (CalleesElsewhere) -> Outcome<Call>,
        then send: @escaping (Outcome<Call>) -> Void, refused: @escaping (HTTPResponse) -> Void
    ) {
        send(initiate(CalleesElsewhere()))
    }

    func route(_ command: CallCommand, for exchange: ServiceThreadBox<HTTPExchange>, local: @escaping () -> Void) {
        local()
    }

    func presence(of uid: String, then done: @escaping (UserPresenceBody?) -> Void) {
        done(UserPresenceBody(uid: uid, devices: devices(of: uid).count, call: service.core.engagingCall(of: uid)))
    }

    func joining(
        _ sessionId: String, as uid: String, from connection: ConnectionID, answering request: ReplyAddress,
        join: @escaping () -> Bool
    ) {
        _ = join()
    }

    /// Numbers the push for each of its users in the push history, and hands it to that user's
    /// sockets but the one excluded: the frame's head is shared, its `seq` tail is the user's.
    func publish(_ delivery: Delivery, _ frame: HistoryFrame, after barrier: UInt64) -> Bool {
        var reached = 0
        var written = 0
        for uid in delivery.users {
            guard let seq = history.record(frame, for: uid, excluding: delivery.excluding) else { continue }
            let devices = service.core.connections(of: uid)
            guard devices.contains(where: { $0 != delivery.excluding }) else { continue }
            let numbered = OutboundFrame(head: frame.head, seq: seq)
            let handed = service.output.hand(numbered, to: devices, excluding: delivery.excluding, after: barrier)
            reached += handed.reached
            written += handed.written
        }
        guard reached > 0 else { return false }
        service.metrics.pushesDelivered(delivery.push.event, count: reached)
        service.metrics.framesSent(written)
        return true
    }

    func persisted<Reply>(_ outcome: Outcome<Reply>, after barrier: UInt64) {}

    func groupsWritten(_ writes: [StoreWrite], after barrier: UInt64) {}

    func perform(_ output: HeldOutput) {}

    func answerHeld(_ forward: ForwardTicket) {}

    func letGo(fencedOut sessions: Set<String>) {}

    func webhooksChanged() {}
}
