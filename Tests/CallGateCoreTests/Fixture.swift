@testable import CallGateCore
import TestSupport
import CallGateProtocol
import Testing

/// A core with a manual clock, scripted session ids and an in-memory group store, plus
/// shorthands for the ops. Users are `User(uid:name:)` with a capitalised name.
final class Fixture {
    static let start: Int64 = 1_700_000_000_000

    let clock = ManualClock(millis: start)
    let groups = InMemoryGroupStore()
    let sessionIDs: ScriptedSessionIDs
    let core: GatewayCore
    private var lastConnection: UInt64 = 0
    /// Call log id -> the entry as the latest op run through the fixture left it, since the
    /// last `changes()`: what the store would have rewritten.
    var loggedChanges: [Int64: CallLogRecord] = [:]
    /// Call log id -> the steps its latest record in an outcome carried (`TimelineTests`).
    var loggedSteps: [Int64: CallSteps] = [:]
    /// Every webhook event the ops run through the fixture reported, in order.
    var webhookEvents: [WebhookEvent] = []

    init(_ configuration: CoreConfiguration = .init(), sessionIDs: [String] = [], callIDs: any CallIDSource = CountingCallIDs()) {
        self.sessionIDs = ScriptedSessionIDs(sessionIDs)
        core = GatewayCore(
            configuration: configuration, clock: clock, groups: groups, sessionIDs: self.sessionIDs, callIDs: callIDs)
    }

    static func user(_ uid: String) -> User {
        User(uid: uid, name: uid.prefix(1).uppercased() + uid.dropFirst())
    }

    /// Connects one more device of `uid`.
    @discardableResult
    func connect(_ uid: String) -> ConnectionID {
        lastConnection += 1
        let connection = ConnectionID(lastConnection)
        _ = connect(connection, user: Self.user(uid))
        return connection
    }

    /// Connects `count` devices of `uid`.
    func devices(_ uid: String, _ count: Int) -> [ConnectionID] {
        (0..<count).map { _ in connect(uid) }
    }

    func group(_ guid: String, _ members: [String]) {
        groups.put(GroupRecord(guid: guid, name: "Group \(guid)", members: members))
    }

    func advance(seconds: Int64) {
        clock.advance(millis: seconds * 1000)
    }

    func advance(millis: Int64) {
        clock.advance(millis: millis)
    }

    /// Now in Unix seconds, as call timestamps carry it.
    var nowSeconds: Int64 {
        clock.nowMillis() / 1000
    }

    var nowMillis: Int64 {
        clock.nowMillis()
    }

    func call(
        _ receiver: String, from connection: ConnectionID, type: ReceiverType = .user,
        callType: CallType = .audio, timeout: Int? = nil, metadata: [String: JSONValue]? = nil
    ) -> Observed<Call> {
        initiateCall(
            InitiateCallParams(
                receiverId: receiver, receiverType: type, callType: callType, timeout: timeout, metadata: metadata),
            from: connection)
    }

    func accept(_ sessionId: String, from connection: ConnectionID) -> Observed<Call> {
        acceptCall(sessionId: sessionId, from: connection)
    }

    func reject(_ sessionId: String, _ status: RejectStatus, from connection: ConnectionID) -> Observed<Call> {
        rejectCall(RejectCallParams(sessionId: sessionId, status: status), from: connection)
    }

    func end(_ sessionId: String, from connection: ConnectionID) -> Observed<Call> {
        endCall(sessionId: sessionId, from: connection)
    }

    // MARK: The Core's ops, observed

    func connect(_ connection: ConnectionID, user: User) -> [Call] {
        (try? observe(core.connect(connection, user: user)).reply.get().activeCalls) ?? []
    }

    /// Connects a new device of `uid` that names `previous` as its connection before.
    func reconnect(_ uid: String, previous: ConnectionID) -> (ConnectionID, Observed<Arrival>) {
        lastConnection += 1
        let connection = ConnectionID(lastConnection)
        return (connection, observe(core.connect(connection, user: Self.user(uid), previous: previous)))
    }

    func disconnect(_ connection: ConnectionID) -> [Sent] {
        observe(core.disconnect(connection)).deliveries
    }

    func fireDueTimers() -> [Sent] {
        observe(core.fireDueTimers()).deliveries
    }

    func restore(openCalls: [CallLogRecord], lastCallID: Int64) {
        _ = observe(core.restore(openCalls: openCalls, lastCallID: lastCallID))
    }

    func initiateCall(_ params: InitiateCallParams, from connection: ConnectionID) -> Observed<Call> {
        observe(core.initiateCall(params, from: connection))
    }

    func acceptCall(sessionId: String, from connection: ConnectionID) -> Observed<Call> {
        observe(core.acceptCall(sessionId: sessionId, from: connection))
    }

    func confirmRinging(_ sessionId: String, from connection: ConnectionID) -> Observed<Call> {
        observe(core.confirmRinging(sessionId: sessionId, from: connection))
    }

    func missedCallsChanged(_ counts: [String: MissedCalls], urgent: Bool = false) -> [Sent] {
        observe(core.missedCallsChanged(counts, urgent: urgent)).deliveries
    }

    func rejectCall(_ params: RejectCallParams, from connection: ConnectionID) -> Observed<Call> {
        observe(core.rejectCall(params, from: connection))
    }

    func endCall(sessionId: String, from connection: ConnectionID) -> Observed<Call> {
        observe(core.endCall(sessionId: sessionId, from: connection))
    }

    func joinSession(sessionId: String, from connection: ConnectionID, audioOnly: Bool, idleTimeout: Int?) -> Observed<Session> {
        observe(core.joinSession(sessionId: sessionId, from: connection, audioOnly: audioOnly, idleTimeout: idleTimeout))
    }

    func leaveSession(sessionId: String, from connection: ConnectionID) -> Observed<Session> {
        observe(core.leaveSession(sessionId: sessionId, from: connection))
    }

    func setMuted(_ params: SetMutedParams, from connection: ConnectionID) -> Observed<Session> {
        observe(core.setMuted(params, from: connection))
    }

    func setRecording(sessionId: String, on: Bool, from connection: ConnectionID) -> Observed<Session> {
        observe(core.setRecording(sessionId: sessionId, on: on, from: connection))
    }

    func switchToVideo(sessionId: String, from connection: ConnectionID) -> Observed<Session> {
        observe(core.switchToVideo(sessionId: sessionId, from: connection))
    }

    func muteParticipant(_ sessionId: String, _ uid: String, from connection: ConnectionID) -> Observed<Session> {
        observe(core.muteParticipant(ParticipantParams(sessionId: sessionId, uid: uid), from: connection))
    }

    func removeParticipant(_ sessionId: String, _ uid: String, from connection: ConnectionID) -> Observed<Session> {
        observe(core.removeParticipant(ParticipantParams(sessionId: sessionId, uid: uid), from: connection))
    }

    func invite(
        _ sessionId: String, _ uids: [String], from connection: ConnectionID, elsewhere: CalleesElsewhere = CalleesElsewhere()
    ) -> Observed<InviteResult> {
        observe(core.inviteToCall(InviteParams(sessionId: sessionId, receiverIds: uids), from: connection, elsewhere: elsewhere))
    }

    func hold(_ sessionId: String, _ on: Bool = true, from connection: ConnectionID) -> Observed<Session> {
        observe(core.setHeld(sessionId: sessionId, on: on, from: connection))
    }

    func sendSessionEvent(
        _ sessionId: String, type: String, data: JSONValue? = nil, from connection: ConnectionID
    ) -> Observed<SessionEventResult> {
        observe(core.sendSessionEvent(SessionEventParams(sessionId: sessionId, type: type, data: data), from: connection))
    }

    func ringOnBehalf(of initiator: String, profile: User? = nil, _ receiver: String, type: ReceiverType = .user) -> Observed<Call> {
        observe(core.ringOnBehalf(
            of: initiator, profile: profile, InitiateCallParams(receiverId: receiver, receiverType: type, callType: .audio)))
    }

    func endByServer(_ sessionId: String, reason: String? = nil) -> Observed<Call> {
        observe(core.endByServer(sessionId: sessionId, reason: reason))
    }

    func muteByServer(_ sessionId: String, _ uid: String) -> Observed<Session> {
        observe(core.muteByServer(sessionId: sessionId, uid: uid))
    }

    func removeByServer(_ sessionId: String, _ uid: String) -> Observed<Session> {
        observe(core.removeByServer(sessionId: sessionId, uid: uid))
    }

    /// Keeps the outcome's log changes for `changes()`, checks the outcome's own invariants,
    /// and resolves its deliveries to the connections that get them, as the server does.
    private func observe<Reply>(_ outcome: Outcome<Reply>, sourceLocation: SourceLocation = #_sourceLocation) -> Observed<Reply> {
        #expect(outcome.logChanges.map(\.id) == outcome.logChanges.map(\.id).sorted(), sourceLocation: sourceLocation)
        for record in outcome.logChanges {
            loggedChanges[record.id] = record
            loggedSteps[record.id] = record.steps
        }
        #expect(outcome.nextDeadline == core.nextDeadline, sourceLocation: sourceLocation)
        if case .failure = outcome.reply {
            #expect(outcome.deliveries.isEmpty, sourceLocation: sourceLocation)
            #expect(outcome.webhookEvents.isEmpty, sourceLocation: sourceLocation)
        }
        webhookEvents += outcome.webhookEvents
        let sent = outcome.deliveries.compactMap { delivery -> Sent? in
            let connections = core.connections(receiving: delivery)
            return connections.isEmpty ? nil : Sent(push: delivery.push, connections: connections)
        }
        return Observed(outcome: outcome, deliveries: sent)
    }
}

/// An op's outcome with its deliveries as the connections of the fixture's gateway get them.
struct Observed<Reply: Sendable> {
    /// What the Core returned.
    let outcome: Outcome<Reply>
    /// The pushes that reached a connection, in order.
    let deliveries: [Sent]

    var reply: Result<Reply, CoreError> {
        outcome.reply
    }

    /// The error code of a failed reply.
    var errorCode: ErrorCode? {
        guard case .failure(let error) = outcome.reply else { return nil }
        return error.code
    }
}

extension Observed where Reply == Call {
    /// The call of a successful reply.
    var call: Call? {
        try? outcome.reply.get()
    }
}

extension Observed where Reply == Session {
    /// The session of a successful reply.
    var session: Session? {
        try? outcome.reply.get()
    }
}

/// One push as the connections that get it see it.
struct Sent: Hashable {
    var push: Push
    var connections: [ConnectionID]
}

/// Shorthand for an expected delivery.
func delivery(_ push: Push, _ connections: [ConnectionID]) -> Sent {
    Sent(push: push, connections: connections)
}

/// Checks the invariants every delivery list keeps: no empty delivery, no connection twice in one.
func expectWellFormed(_ deliveries: [Sent], sourceLocation: SourceLocation = #_sourceLocation) {
    for item in deliveries {
        #expect(!item.connections.isEmpty, sourceLocation: sourceLocation)
        #expect(Set(item.connections).count == item.connections.count, sourceLocation: sourceLocation)
    }
}
