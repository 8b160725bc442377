import CallGateProtocol

/// Call waiting: a caller whose app allows it (`initiateCall`'s `callWaiting`) rings a callee
/// who is in another answered call instead of finding them busy; the callee's accept puts that
/// call on hold for them ("held away"): they stay its participant, on hold in its session, but
/// it no longer engages them, so the new call does. Resuming the held call (`resumeCall`) makes
/// it their call again, once no other call engages them. A user may hold several calls this way,
/// one per waiting call they took. Service thread only.
extension GatewayCore {
    /// Puts `uid`'s answered call `sessionId` on hold for them so that they may accept a waiting
    /// call: in its session they are on hold (every device of everyone in it, theirs included,
    /// gets `onCallHeld`; the backend hears `session.call_held`), and the call no longer engages
    /// them. Runs on the node that owns the call; in cluster mode the node of the waiting call
    /// asks it first (`CallCommand.holdAway`).
    ///
    /// Errors: `ERROR_CALL_IN_PROGRESS`, with the reason, when the call does not engage them, is
    /// not answered, or they have not joined its session (nothing to hold); `ERR_RATE_LIMITED`
    /// past the user's session events, which each hold counts against as `holdCall` does.
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
        let limit = configuration.maxSessionEventsPerWindow
        guard sessionEvents.spend(uid, limit: limit, now: monotonicNow) else { throw .sessionEventsRateLimited(limit) }
        if member.heldSince == nil {
            hold(member, true, in: session, excluding: nil, into: &list)
        }
        disengage(uid, live.id, into: &list)
        heldAway[uid, default: []].append(live.id)
    }

    /// `uid` resumes call `sessionId`, which they held away: it engages them again, unless
    /// another call does (`ERROR_CALL_IN_PROGRESS`). Whether they held it away.
    func takeBack(_ uid: String, _ sessionId: String, into list: inout EffectList) throws(CoreError) -> Bool {
        guard holdsAway(uid, sessionId) else { return false }
        guard engagedCall[uid] == nil else {
            throw .busyElsewhere("you are in another call: hold or end it before you take this one back")
        }
        forgetHeldAway(uid, sessionId)
        engagedCall[uid] = sessionId
        list.engagementChanged(uid)
        return true
    }

    /// Whether call `sessionId` allows call waiting and still rings `uid`: their accept may put
    /// the call they are in on hold. Service thread only.
    public func waitingCall(_ sessionId: String, rings uid: String) -> Bool {
        guard let live = calls[sessionId] else { return false }
        return live.call.callWaiting == true && live.state(of: uid) == .ringing
    }

    /// `uid` no longer holds call `sessionId` for a waiting call (they took it back, left it, or
    /// it ended).
    func forgetHeldAway(_ uid: String, _ sessionId: String) {
        guard let held = heldAway[uid], held.contains(sessionId) else { return }
        let others = held.filter { $0 != sessionId }
        heldAway[uid] = others.isEmpty ? nil : others
    }

    /// Whether `uid` holds call `sessionId` for a waiting call. Service thread only.
    public func holdsAway(_ uid: String, _ sessionId: String) -> Bool {
        heldAway[uid]?.contains(sessionId) == true
    }
}
