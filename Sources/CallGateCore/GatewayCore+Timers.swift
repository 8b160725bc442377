import CallGateProtocol

extension GatewayCore {
    /// The deadline, on the clock's monotonic milliseconds, of the earliest pending timer (ring timeout, grace period,
    /// idle timeout or retention expiry), nil when none is pending. The server arms one timer for it and
    /// calls `fireDueTimers` when it passes. Service thread only.
    public var nextDeadline: Int64? {
        timers.nextDeadline()
    }

    /// Runs every timer whose deadline is at or before the clock's now, earliest first, and
    /// returns the pushes they cause:
    /// - ring timeout, nobody answered: the call ends `unanswered`, the caller's devices get
    ///   `onOutgoingCallRejected {call}` (no `by`), ringing devices get `onIncomingCallCanceled`
    ///   with reason `unanswered`;
    /// - ring timeout of an answered group call: members still ringing stop with reason
    ///   `unanswered` and the call goes on;
    /// - the caller's grace period: the ringing call is cancelled;
    /// - a participant's grace period: they leave the call with reason `disconnected`;
    /// - retention: a finished call is forgotten, later ops on it get `ERR_CALL_NOT_FOUND`;
    /// - a session's idle timeout: its only participant gets `onSessionTimeout`, is removed, and
    ///   the session ends (with its ringing call, if any; see `joinSession`);
    /// - a session participant's grace period: they leave the session as with `leaveSession`,
    ///   with reason `disconnected`;
    /// - history retention: a finished session's history is forgotten;
    /// - a meeting resumed after a restart that nobody joined again within
    ///   `participantGracePeriod` ends.
    ///
    /// A call that ends here ends its session too, with `onCallEnded`.
    ///
    /// Service thread only.
    public func fireDueTimers() -> [Delivery] {
        let now = monotonicNow
        var list = DeliveryList()
        while let event = timers.popDue(now: now) {
            switch event {
            case .ringTimeout(let sessionId):
                ringTimedOut(sessionId, into: &list)
            case .grace(let uid, let sessionId):
                graceEnded(for: uid, in: sessionId, into: &list)
            case .forget(let sessionId):
                finishedCalls[sessionId] = nil
            case .idle(let sessionId):
                idleTimedOut(sessionId, into: &list)
            case .sessionGrace(let uid, let sessionId):
                sessionGraceEnded(for: uid, in: sessionId, into: &list)
            case .forgetHistory(let sessionId):
                finishedHistories[sessionId] = nil
                historyExpiry[sessionId] = nil
            case .vacant(let sessionId):
                if let room = rooms[sessionId], room.uids.isEmpty {
                    closeRoom(sessionId, alsoTelling: [], excluding: nil, into: &list)
                }
            }
        }
        return list.deliveries
    }

    private func ringTimedOut(_ sessionId: String, into list: inout DeliveryList) {
        guard let session = sessions[sessionId] else { return }
        session.ringTimer = nil
        let ringing = session.members(in: .ringing)
        guard session.call.callStatus == .initiated else {
            for uid in ringing {
                move(uid, to: .missed, in: session)
            }
            list.send(.incomingCallCanceled(call: session.call, reason: .unanswered), to: devices(of: ringing))
            return
        }
        let call = finish(session, as: .unanswered)
        list.send(.outgoingCallRejected(call: call, by: nil), to: devices(of: [call.initiator.uid]))
        list.send(.incomingCallCanceled(call: call, reason: .unanswered), to: devices(of: ringing))
        closeRoom(sessionId, alsoTelling: [call.initiator.uid], excluding: nil, into: &list)
    }

    private func graceEnded(for uid: String, in sessionId: String, into list: inout DeliveryList) {
        cancelGrace(for: uid, in: sessionId)
        guard let session = sessions[sessionId],
              session.state(of: uid) == .joined,
              let user = session.profiles[uid]
        else { return }
        switch session.call.callStatus {
        case .initiated:
            _ = cancelRinging(session, excluding: nil, into: &list)
        default:
            _ = depart(session, user: user, reason: .disconnected, excluding: nil, into: &list)
        }
    }
}
