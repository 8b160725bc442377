import CallGateProtocol

/// Inviting into a live call: a participant of an answered call rings more users into it, for
/// the same session. Service thread only.
extension GatewayCore {
    /// The most uids one `inviteToCall` names.
    public static let maxInviteesPerRequest = 10

    /// Rings `params.receiverIds` into the answered call `params.sessionId` on behalf of
    /// `connection`'s user, a participant of it. Each invitee's devices get
    /// `onIncomingCallReceived {call, invitedBy}`; they accept with `acceptCall` (the others get
    /// `onOutgoingCallAccepted` as for any answer, and see them join the session) or decline with
    /// `rejectCall`, and the call goes on either way. An invitee rings for the default ring
    /// timeout from now (the call's `ringExpiresAt` moves to it); whoever still rings then missed
    /// it. With auto-busy, an invitee in another answered call (`elsewhere.answered` for other
    /// nodes) is not rung and shows as missed in the log. A 1:1 call that grows behaves as a
    /// group call from then on (one leaver no longer ends it) and logs every participant. The
    /// backend hears `call.invited` (`by` the inviter), then `call.ringing`, for each invitee rung.
    ///
    /// Errors, in order: `ERR_INVALID_SESSION_ID`; a meeting (`ERR_BAD_REQUEST`: share its id),
    /// a finished call's status error, `ERR_CALL_NOT_FOUND`; not a participant
    /// (`ERR_NOT_PARTICIPANT`, or the member error of one who left or declined); the call still
    /// rings (`ERR_BAD_REQUEST`); `receiverIds` not 1 to 10 valid uids, the inviter's own, the
    /// caller's, one the host removed, or a user ringing or taking part already
    /// (`ERR_BAD_REQUEST`; a repeated uid counts once); `ERR_TOO_MANY_PARTICIPANTS` past
    /// `maxCallMembers` ringing or taking part, or twice as many ever in the call; `ERR_RATE_LIMITED`:
    /// each invite counts as a call start against `maxCallsPerMinute` (on the node that owns the
    /// call).
    public func inviteToCall(
        _ params: InviteParams, from connection: ConnectionID, elsewhere: CalleesElsewhere
    ) -> Outcome<InviteResult> {
        transition { list throws(CoreError) in
            let inviter = try requireUser(connection)
            if SessionIDFormat.isValid(params.sessionId), calls[params.sessionId] == nil, sessions[params.sessionId] != nil {
                throw .badRequest("a meeting is joined with its id: share it instead of inviting")
            }
            let live = try liveCall(params.sessionId)
            guard let state = live.state(of: inviter.uid) else { throw .notParticipant("you are not in this call") }
            guard state == .joined else { throw .member(state) }
            guard live.call.callStatus == .ongoing else {
                throw .badRequest("the call still rings: invite once it is answered")
            }
            let invitees = try self.invitees(params.receiverIds, of: live, by: inviter.uid)
            let members = live.members(in: .joined).count + live.ringingCount
            // Those who declined or missed stay in the log: everyone ever in the call is bounded too.
            let ever = live.everyone.count + live.busySkipped.count
            let everCap = configuration.maxCallMembers.multipliedReportingOverflow(by: 2)
            guard members + invitees.count <= configuration.maxCallMembers,
                  everCap.overflow || ever + invitees.count <= everCap.partialValue
            else {
                throw .tooManyParticipants(configuration.maxCallMembers)
            }
            // Every invite rings phones and wakes them by push: it counts as a call start.
            guard callStarts.spend(inviter.uid, limit: configuration.maxCallsPerMinute, now: monotonicNow) else {
                throw .callRateLimited(configuration.maxCallsPerMinute)
            }
            var rung: [String] = []
            var busy: [String] = []
            for uid in invitees {
                if let user = directory.profile(of: uid) ?? elsewhere.profiles[uid] {
                    live.remember(user)
                }
                if configuration.autoBusy, isInOngoingCall(uid) || elsewhere.answered.contains(uid) {
                    busy.append(uid)
                    live.skipBusy(uid)
                    note(.busy, in: live, uid: uid)
                } else {
                    rung.append(uid)
                }
            }
            if !rung.isEmpty {
                ring(rung, into: live, invitedBy: inviter, elsewhere: elsewhere, into: &list)
            }
            return InviteResult(call: live.call, rung: rung, busy: busy)
        }
    }

    /// The distinct uids of `receiverIds`, checked: 1 to `maxInviteesPerRequest` valid uids, none
    /// the inviter's own, the caller's (who cannot be a callee of their own call), one the host
    /// removed, nor of a user ringing or taking part in `live` already.
    private func invitees(_ receiverIds: [String], of live: LiveCall, by inviter: String) throws(CoreError) -> [String] {
        guard (1...Self.maxInviteesPerRequest).contains(receiverIds.count) else {
            throw .badRequest("data.receiverIds: expected 1 to \(Self.maxInviteesPerRequest) uids")
        }
        var invitees: [String] = []
        for (index, uid) in receiverIds.enumerated() {
            guard FieldRules.isValidID(uid) else {
                throw .badRequest("data.receiverIds[\(index)]: \(FieldRules.idRuleDescription)")
            }
            guard uid != inviter else { throw .badRequest("data.receiverIds[\(index)]: that is you") }
            guard uid != live.callerUID else {
                throw .badRequest("data.receiverIds[\(index)]: \(uid) started this call and cannot be rung into it")
            }
            if sessions[live.id]?.removed.contains(uid) == true {
                throw .badRequest("data.receiverIds[\(index)]: the host removed \(uid) from this call")
            }
            if let state = live.state(of: uid), state == .ringing || state == .joined {
                throw .badRequest("data.receiverIds[\(index)]: \(uid) is in this call already")
            }
            if !invitees.contains(uid) {
                invitees.append(uid)
            }
        }
        return invitees
    }

    /// Rings `uids` into `live`: their ring lasts the default ring timeout from now, or longer
    /// when the call's ring timeout passes later.
    private func ring(
        _ uids: [String], into live: LiveCall, invitedBy inviter: User, elsewhere: CalleesElsewhere,
        into list: inout EffectList
    ) {
        for uid in uids {
            live.ringInvitee(uid)
            addRinging(uid, live)
        }
        let deadline = max(nowMillis + Int64(configuration.defaultRingTimeout) * 1000, live.ringDeadline ?? 0)
        if let timer = live.ringTimer {
            timers.cancel(timer)
        }
        startRingTimeout(of: live, at: deadline)
        live.call.ringExpiresAt = Self.ringExpiry(ofDeadline: deadline)
        list.send(.incomingCallReceived(call: live.call, invitedBy: inviter), to: uids)
        _ = noteRung(uids, in: live, invitedBy: inviter, elsewhere: elsewhere, into: &list)
    }
}
