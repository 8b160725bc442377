import CallGateProtocol

extension GatewayCore {
    /// Answers a call that rings `connection`'s user.
    ///
    /// Only a callee still ringing may accept; the caller gets `ERR_NOT_PARTICIPANT`, a user who
    /// already joined `ERR_CALL_ALREADY_JOINED`, and a user engaged in another call
    /// `ERROR_CALL_IN_PROGRESS` (a user takes part in one call at a time). The first accept makes
    /// the call `ongoing` and sets `joinedAt`; in a group, later accepts join the same call.
    ///
    /// Pushes: every device of the caller and of the participants who joined before gets
    /// `onOutgoingCallAccepted {call, by}`; the accepter's other devices get
    /// `onIncomingCallCanceled` with reason `answeredElsewhere`. Service thread only.
    public func acceptCall(sessionId: String, from connection: ConnectionID) -> CallOutcome {
        CallOutcome.attempt { () throws(CoreError) in try accept(sessionId, from: connection) }
    }

    private func accept(_ sessionId: String, from connection: ConnectionID) throws(CoreError) -> CallOutcome {
        let user = try requireUser(connection)
        let session = try liveSession(sessionId)
        guard user.uid != session.callerUID else { throw .notParticipant("only a callee accepts a call") }
        guard let state = session.state(of: user.uid) else { throw .notParticipant("this call does not ring you") }
        guard state == .ringing else { throw .member(state) }
        guard engagedCall[user.uid] == nil else { throw .callInProgress }

        let joinedBefore = session.members(in: .joined)
        move(user.uid, to: .joined, in: session)
        session.remember(user)
        if session.call.callStatus == .initiated {
            session.call.callStatus = .ongoing
            session.call.joinedAt = nowSeconds
            session.startStay(of: session.callerUID, at: nowSeconds)
            if directory.connections(of: session.callerUID).isEmpty {
                startGrace(for: session.callerUID, in: session.id, lasting: configuration.participantGracePeriod)
            }
        }
        session.startStay(of: user.uid, at: nowSeconds)
        if !session.isGroup {
            session.call.receiver = .user(user)
        }
        noteLogChange(session)
        let call = session.call
        var list = DeliveryList()
        list.send(.outgoingCallAccepted(call: call, by: user), to: devices(of: joinedBefore))
        list.send(
            .incomingCallCanceled(call: call, reason: .answeredElsewhere),
            to: devices(of: [user.uid], excluding: connection))
        return CallOutcome(reply: .success(call), deliveries: list.deliveries)
    }
}
