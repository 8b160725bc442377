import CallGateProtocol

/// What the app's backend does to calls through the admin API: ring on a user's behalf, end a
/// call for everyone, mute or remove a participant, and ask where a user stands. It acts as
/// nobody in the call: `by`, `mutedBy` and the like are absent from what the devices hear.
/// Service thread only.
extension GatewayCore {
    /// Rings `params.receiverId` on behalf of `initiator`, whose devices need not be connected:
    /// as `initiateCall` from a device of theirs, with these differences. The group rung need
    /// not have the initiator as a member (a member initiator is not rung); the call does not
    /// count against the initiator's `maxCallsPerMinute` (the backend is trusted); and every
    /// device of the initiator hears of the call at once, through an `onOutgoingCallRinging`
    /// (since none asked for it). The initiator takes part as any caller: answered while no
    /// device of theirs is connected, the call gives them `participantGracePeriod` to connect
    /// one before they leave it.
    ///
    /// The initiator is shown with `profile` when the backend gave one, else as a device of
    /// theirs connected here or (`elsewhere.profiles`) to another node says, else by their uid.
    /// Errors as for `initiateCall`: `ERR_BAD_REQUEST`, `ERR_CALLING_SELF`,
    /// `ERROR_CALL_IN_PROGRESS` (the initiator is in a call), `ERR_GROUP_NOT_FOUND`.
    public func ringOnBehalf(
        of initiator: String, profile: User? = nil, _ params: InitiateCallParams,
        elsewhere: CalleesElsewhere = CalleesElsewhere()
    ) -> Outcome<Call> {
        transition { list throws(CoreError) in
            guard FieldRules.isValidID(initiator), profile == nil || profile?.uid == initiator else {
                throw .badRequest("initiator: \(FieldRules.idRuleDescription)")
            }
            let caller = profile ?? directory.profile(of: initiator) ?? elsewhere.profiles[initiator] ?? self.profile(of: initiator)
            return try initiate(params, by: caller, from: nil, elsewhere: elsewhere, into: &list)
        }
    }

    /// Ends call `sessionId` for everyone: a call still ringing ends `cancelled`, an answered one
    /// `ended`; `reason`, when given, is kept in the call (`serverReason`) and in its timeline.
    ///
    /// Every device of the caller and of the participants gets `onCallEndedMessageReceived`
    /// with reason `endedByServer` and no `by`; every device still ringing gets
    /// `onIncomingCallCanceled` with reason `endedByServer`; the session ends (`onCallEnded`).
    /// The backend hears `call.cancelled` or `call.ended` with reason `endedByServer`.
    ///
    /// Errors: `ERR_INVALID_SESSION_ID`; a meeting (`ERR_BAD_REQUEST`: it ends with its last
    /// participant, whom the backend may remove); a finished call's status error;
    /// `ERR_CALL_NOT_FOUND`; a reason that is empty, longer than `FieldRules.maxReasonBytes` or
    /// holds control characters (`ERR_BAD_REQUEST`).
    public func endByServer(sessionId: String, reason: String?) -> Outcome<Call> {
        transition { list throws(CoreError) in
            if let reason, !FieldRules.isValidReason(reason) {
                throw .badRequest("reason: \(FieldRules.reasonRuleDescription)")
            }
            if SessionIDFormat.isValid(sessionId), calls[sessionId] == nil, sessions[sessionId] != nil {
                throw .badRequest("a meeting ends when its last participant leaves: remove its participants instead")
            }
            let live = try liveCall(sessionId)
            live.call.serverReason = reason
            let ringing = live.call.callStatus == .initiated
            let told = ringing ? [live.callerUID] : live.members(in: .joined)
            return finish(
                live, as: ringing ? .cancelled : .ended, reason: .endedByServer, closingSessionFor: told, excluding: nil,
                into: &list
            ) { call in
                [Delivery(push: .callEndedMessageReceived(call: call, by: nil, reason: .endedByServer), users: told)]
            }
        }
    }

    /// Mutes participant `uid` of session `sessionId`'s audio, as a host's `muteParticipant`
    /// does but for anyone in the session, the host included: every device of everyone in it
    /// gets `onUserMuted` without `mutedBy`. A user already muted is left as is.
    ///
    /// Errors: `ERR_INVALID_SESSION_ID`; a malformed uid (`ERR_BAD_REQUEST`); a finished call's
    /// status error, `ERR_CALL_NOT_FOUND`; a user not in the session, or a live call whose
    /// session nobody joined (`ERR_NOT_PARTICIPANT`).
    public func muteByServer(sessionId: String, uid: String) -> Outcome<Session> {
        transition { list throws(CoreError) in
            let (session, target) = try sessionMember(uid, of: sessionId)
            mute(target, in: session, by: nil, excluding: nil, into: &list)
            return session.snapshot
        }
    }

    /// Removes participant `uid` from session `sessionId`, as a host's `removeParticipant` does
    /// but for anyone in it, the host included: their devices get `onRemovedFromCall` without
    /// `by`, they leave with reason `removed`, may not join again while the session lives, and
    /// the backend hears `session.participant_removed` without `by`. Errors as `muteByServer`.
    public func removeByServer(sessionId: String, uid: String) -> Outcome<Session> {
        transition { list throws(CoreError) in
            let (session, target) = try sessionMember(uid, of: sessionId)
            remove(target, from: session, by: nil, actor: nil, into: &list)
            return sessions[session.id]?.snapshot ?? session.snapshot
        }
    }

    /// The call `uid` takes part in (as its caller, or joined to it), if it runs here.
    public func engagingCall(of uid: String) -> Call? {
        engagedCall[uid].flatMap { calls[$0]?.call }
    }

    /// Session `sessionId` and its member `uid`, for the backend to act on.
    private func sessionMember(_ uid: String, of sessionId: String) throws(CoreError) -> (LiveSession, SessionMember) {
        guard SessionIDFormat.isValid(sessionId) else { throw .invalidSessionID }
        guard FieldRules.isValidID(uid) else { throw .badRequest("uid: \(FieldRules.idRuleDescription)") }
        let session = try liveSession(
            sessionId, unjoined: .notParticipant("\(uid) is not in this call's session: nobody joined it yet"))
        guard let member = session.members[uid] else { throw .notParticipant("\(uid) is not in this session") }
        return (session, member)
    }
}
