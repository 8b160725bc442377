import CallGateProtocol

extension GatewayCore {
    /// Hangs up.
    ///
    /// The caller of a call nobody answered yet cancels it (as `rejectCall` with `cancelled`).
    /// A participant of a 1:1 call ends it: status `ended`, `endedAt` set, and every other device
    /// of both participants gets `onCallEndedMessageReceived {call, by, reason: hungUp}`.
    /// A participant of a group call leaves it: their other devices get the same push; when
    /// fewer than two participants remain the call ends `ended`, every remaining participant's
    /// device gets it too and every still-ringing device gets `onIncomingCallCanceled` with
    /// reason `ended`. The reply is the call as it then stands. Anyone else gets
    /// `ERR_NOT_PARTICIPANT`.
    ///
    /// A call that ends this way ends its session too: every device of the call's participants
    /// and of the session's, except `connection`, also gets `onCallEnded {sessionId}`. A group
    /// participant who leaves a call that goes on leaves its session (`onUserLeft`,
    /// `onUserListChanged` to those still in). Service thread only.
    public func endCall(sessionId: String, from connection: ConnectionID) -> CallOutcome {
        CallOutcome.attempt { () throws(CoreError) in try end(sessionId, from: connection) }
    }

    private func end(_ sessionId: String, from connection: ConnectionID) throws(CoreError) -> CallOutcome {
        let user = try requireUser(connection)
        let session = try liveSession(sessionId)
        var list = DeliveryList()
        if session.call.callStatus == .initiated, user.uid == session.callerUID {
            let call = cancelRinging(session, excluding: connection, into: &list)
            return CallOutcome(reply: .success(call), deliveries: list.deliveries)
        }
        guard let state = session.state(of: user.uid) else { throw .notParticipant("you are not in this call") }
        guard state == .joined else { throw .member(state) }
        let call = depart(session, user: user, reason: .hungUp, excluding: connection, into: &list)
        return CallOutcome(reply: .success(call), deliveries: list.deliveries)
    }

    /// A joined participant of an answered call goes away, by `endCall`, `leaveSession` or when
    /// their grace period passes: a 1:1 call ends, a group call loses them and ends below two
    /// participants. Its session follows: a group participant who leaves the call goes out of
    /// the session (`onUserLeft`, `onUserListChanged` to those still in), and a call that ends
    /// ends its session (`onCallEnded` to every device of the call's participants and the
    /// session's, but `excluding`). `excluding` is the connection that asked, which gets the
    /// reply instead of a push.
    func depart(
        _ session: CallSession, user: User, reason: EndReason, excluding: ConnectionID?,
        into list: inout DeliveryList
    ) -> Call {
        guard session.isGroup else {
            let participants = session.members(in: .joined)
            let call = finish(session, as: .ended)
            list.send(
                .callEndedMessageReceived(call: call, by: user, reason: reason),
                to: devices(of: participants, excluding: excluding))
            closeRoom(session.id, alsoTelling: participants, excluding: excluding, into: &list)
            return call
        }
        move(user.uid, to: .left, in: session)
        let remaining = session.members(in: .joined)
        guard remaining.count < 2 else {
            if let room = rooms[session.id] {
                removeFromRoom(user.uid, room, into: &list)
            }
            list.send(
                .callEndedMessageReceived(call: session.call, by: user, reason: reason),
                to: devices(of: [user.uid], excluding: excluding))
            return session.call
        }
        let ringing = session.members(in: .ringing)
        let call = finish(session, as: .ended)
        list.send(
            .callEndedMessageReceived(call: call, by: user, reason: reason),
            to: devices(of: [user.uid] + remaining, excluding: excluding))
        list.send(.incomingCallCanceled(call: call, reason: .ended), to: devices(of: ringing))
        closeRoom(session.id, alsoTelling: [user.uid] + remaining, excluding: excluding, into: &list)
        return call
    }
}
