import CallGateProtocol

/// Call waiting: a caller whose app allows it (`initiateCall`'s `callWaiting`) rings a callee
/// who is in another answered call instead of finding them busy; the callee's accept puts that
/// call on hold for them ("held away"): they stay its participant, on hold in its session, but
/// it no longer engages them, so the new call does. Resuming the held call (`resumeCall`) makes
/// it their call again, once no other call engages them. A user holds at most one call away.
/// Service thread only.
extension GatewayCore {
    /// Puts `uid`'s answered call `sessionId` on hold for them so that they may accept a waiting
    /// call: in its session they are on hold (every device of everyone in it, theirs included,
    /// gets `onCallHeld`; the backend hears `session.call_held`), and the call no longer engages
    /// them. Runs on the node that owns the call; in cluster mode the node of the waiting call
    /// asks it first (`CallCommand.holdAway`).
    ///
    /// Errors (`ERROR_CALL_IN_PROGRESS`, with the reason): the call does not engage them, is not
    /// answered, they have not joined its session (nothing to hold), or they hold another call
    /// away already.
    public func holdAway(_ uid: String, in sessionId: String) -> Outcome<Call> {
        transition { list throws(CoreError) in
            guard let live = calls[sessionId], engagedCall[uid] == sessionId else {
                throw .callInProgress
            }
            try holdAway(uid, in: live, into: &list)
            return live.call
        }
    }

    /// Holds `live` away for `uid`, who accepts a waiting call; see `holdAway(_:in:)`.
    func holdAway(_ uid: String, in live: LiveCall, into list: inout EffectList) throws(CoreError) {
        guard live.call.callStatus == .ongoing, live.state(of: uid) == .joined else { throw .callInProgress }
        guard let session = sessions[live.id], let member = session.members[uid] else {
            throw .busyElsewhere("join the session of your call before you take a waiting call: it is put on hold there")
        }
        guard heldAway[uid] == nil else {
            throw .busyElsewhere("you hold a call already: end it or take it back before you take another")
        }
        if member.heldSince == nil {
            _ = session.setHeld(member, true, at: nowSeconds)
            note(.held, in: session, uid: uid)
            list.report(.callHeld, WebhookData(call: live.call, sessionId: session.id, user: member.user))
            list.send(.callHeld(sessionId: session.id, user: member.user), to: session.uids)
        }
        disengage(uid, live.id, into: &list)
        heldAway[uid] = live.id
    }

    /// `uid` resumes call `sessionId`, which they held away: it engages them again, unless
    /// another call does (`ERROR_CALL_IN_PROGRESS`). Whether they held it away.
    func takeBack(_ uid: String, _ sessionId: String, into list: inout EffectList) throws(CoreError) -> Bool {
        guard heldAway[uid] == sessionId else { return false }
        guard engagedCall[uid] == nil else {
            throw .busyElsewhere("you are in another call: hold or end it before you take this one back")
        }
        heldAway[uid] = nil
        engagedCall[uid] = sessionId
        list.engagementChanged(uid)
        return true
    }

    /// Whether call `sessionId` lets its callees take it while in another call. Service thread
    /// only.
    public func allowsCallWaiting(_ sessionId: String) -> Bool {
        calls[sessionId]?.call.callWaiting == true
    }
}
