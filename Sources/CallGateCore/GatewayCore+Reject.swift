import CallGateProtocol

extension GatewayCore {
    /// Declines (status `rejected` or `busy`, by a ringing callee) or cancels (status
    /// `cancelled`, by the caller, only while nobody answered) a call.
    ///
    /// A 1:1 decline ends the call with the requested status: every device of the caller gets
    /// `onOutgoingCallRejected {call, by}` and the decliner's other devices get
    /// `onIncomingCallCanceled` with reason `rejectedElsewhere`. In a group only the decliner
    /// stops ringing (their other devices get `rejectedElsewhere`); once every member rung has
    /// declined a call nobody answered, it ends `rejected` and the caller's devices get
    /// `onOutgoingCallRejected` with the last decliner as `by`. A cancel ends the call
    /// `cancelled` and every ringing device gets `onIncomingCallCanceled` with reason
    /// `cancelled`; the caller's other devices get nothing, as they got nothing when it started.
    ///
    /// A caller declining, or a callee cancelling, gets `ERR_NOT_PARTICIPANT`; cancelling an
    /// answered call gets `ERR_CALL_ALREADY_JOINED` (use `endCall`). A call that ends while its
    /// caller is in its session ends the session: the caller's devices but `connection` get
    /// `onCallEnded`. Service thread only.
    public func rejectCall(_ params: RejectCallParams, from connection: ConnectionID) -> CallOutcome {
        CallOutcome.attempt { () throws(CoreError) in try reject(params, from: connection) }
    }

    private func reject(_ params: RejectCallParams, from connection: ConnectionID) throws(CoreError) -> CallOutcome {
        let user = try requireUser(connection)
        let session = try liveSession(params.sessionId)
        var list = DeliveryList()
        if params.status == .cancelled {
            let call = try cancel(session, by: user, from: connection, into: &list)
            return CallOutcome(reply: .success(call), deliveries: list.deliveries)
        }
        guard user.uid != session.callerUID else {
            throw .notParticipant("the caller cancels a call with status cancelled")
        }
        guard let state = session.state(of: user.uid) else { throw .notParticipant("this call does not ring you") }
        guard state == .ringing else { throw .member(state) }

        let call: Call
        if session.isGroup {
            call = declineGroupCall(session, by: user, from: connection, into: &list)
        } else {
            move(user.uid, to: .declined, in: session)
            session.call.receiver = .user(user)
            move(user.uid, to: .declined, in: session)
            call = finish(session, as: params.status == .busy ? .busy : .rejected)
            list.send(.outgoingCallRejected(call: call, by: user), to: devices(of: [call.initiator.uid]))
            list.send(
                .incomingCallCanceled(call: call, reason: .rejectedElsewhere),
                to: devices(of: [user.uid], excluding: connection))
            closeRoom(call.sessionId, alsoTelling: [call.initiator.uid], excluding: connection, into: &list)
        }
        return CallOutcome(reply: .success(call), deliveries: list.deliveries)
    }

    private func declineGroupCall(
        _ session: CallSession, by user: User, from connection: ConnectionID, into list: inout DeliveryList
    ) -> Call {
        move(user.uid, to: .declined, in: session)
        let everyoneDeclined = session.call.callStatus == .initiated && session.ringingCount == 0
        let call = everyoneDeclined ? finish(session, as: .rejected) : session.call
        if everyoneDeclined {
            list.send(.outgoingCallRejected(call: call, by: user), to: devices(of: [call.initiator.uid]))
        }
        list.send(
            .incomingCallCanceled(call: call, reason: .rejectedElsewhere),
            to: devices(of: [user.uid], excluding: connection))
        if everyoneDeclined {
            closeRoom(call.sessionId, alsoTelling: [call.initiator.uid], excluding: connection, into: &list)
        }
        return call
    }

    /// The caller's cancel, by `rejectCall` with status `cancelled` or by `endCall` while ringing.
    func cancel(
        _ session: CallSession, by user: User, from connection: ConnectionID, into list: inout DeliveryList
    ) throws(CoreError) -> Call {
        guard user.uid == session.callerUID else { throw .notParticipant("only the caller cancels a call") }
        guard session.call.callStatus == .initiated else {
            throw .alreadyJoined("the call was answered: end it with endCall")
        }
        return cancelRinging(session, excluding: connection, into: &list)
    }

    /// Ends a ringing call as `cancelled` and stops every ringing device. If the caller joined
    /// its session, the session ends: their devices but `excluding` get `onCallEnded`.
    func cancelRinging(_ session: CallSession, excluding: ConnectionID?, into list: inout DeliveryList) -> Call {
        let ringing = session.members(in: .ringing)
        let call = finish(session, as: .cancelled)
        list.send(.incomingCallCanceled(call: call, reason: .cancelled), to: devices(of: ringing))
        closeRoom(call.sessionId, alsoTelling: [call.initiator.uid], excluding: excluding, into: &list)
        return call
    }
}
