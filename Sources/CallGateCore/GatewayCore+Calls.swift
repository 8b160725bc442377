import CallGateProtocol

/// The call that rings and has a status: its four ops and the timers that end it; how a call
/// lives and finishes is `GatewayCore+CallLifecycle`. Service thread only.
extension GatewayCore {
    // MARK: Ops

    /// Rings a user or a group on behalf of `connection`'s user.
    ///
    /// Checks, in order: the connection is logged in; `receiverId` is a valid uid or guid
    /// (`FieldRules.isValidID`);
    /// `timeout` is allowed; `metadata` fits `maxMetadataBytes`; the caller is not calling
    /// themself; the caller is not already ringing someone or in a call (being rung does not
    /// count); the caller started fewer than `maxCallsPerMinute` calls in the last minute
    /// (`ERR_RATE_LIMITED`); a group exists, has the caller as a member and has someone else to ring.
    ///
    /// The reply is the `initiated` call, and every device of each callee gets
    /// `onIncomingCallReceived`; the caller's other devices get nothing. With `autoBusy`, a
    /// callee in an answered call is not rung: a 1:1 call (or a group call that leaves nobody
    /// to ring) ends `busy` at once, and every device of the caller, the requesting one
    /// included, gets `onOutgoingCallRejected` with the busy user as `by`.
    ///
    /// In cluster mode `elsewhere` is what the other nodes know of the callees: those in an
    /// answered call there (with `autoBusy` they count as busy too), and the profiles of those
    /// with no device here.
    public func initiateCall(
        _ params: InitiateCallParams, from connection: ConnectionID, elsewhere: CalleesElsewhere = CalleesElsewhere()
    ) -> Outcome<Call> {
        transition { list throws(CoreError) in
            try initiate(params, by: try requireUser(connection), from: connection, elsewhere: elsewhere, into: &list)
        }
    }

    /// Answers a call that rings `connection`'s user.
    ///
    /// Only a callee still ringing may accept; the caller gets `ERR_NOT_PARTICIPANT`, a user who
    /// already joined `ERR_CALL_ALREADY_JOINED`, and a user engaged in another call
    /// `ERROR_CALL_IN_PROGRESS` (a user takes part in one call at a time), unless the call allows
    /// call waiting: then their answered call is put on hold for them first (`holdAway`), which
    /// needs them joined to its session and no other call held away. The first accept makes
    /// the call `ongoing` and sets `joinedAt`; in a group, later accepts join the same call.
    ///
    /// Pushes: every device of the caller and of the participants who joined before gets
    /// `onOutgoingCallAccepted {call, by}`; the accepter's other devices get
    /// `onIncomingCallCanceled` with reason `answeredElsewhere`.
    public func acceptCall(sessionId: String, from connection: ConnectionID) -> Outcome<Call> {
        transition { list throws(CoreError) in try accept(sessionId, from: connection, into: &list) }
    }

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
    /// `onCallEnded`.
    public func rejectCall(_ params: RejectCallParams, from connection: ConnectionID) -> Outcome<Call> {
        transition { list throws(CoreError) in try reject(params, from: connection, into: &list) }
    }

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
    /// `onUserListChanged` to those still in).
    public func endCall(sessionId: String, from connection: ConnectionID) -> Outcome<Call> {
        transition { list throws(CoreError) in try end(sessionId, from: connection, into: &list) }
    }

    /// Starts a call of `caller`: from their device `connection`, or rung by the app's backend on
    /// their behalf (`connection` nil; see `ringOnBehalf`).
    func initiate(
        _ params: InitiateCallParams, by caller: User, from connection: ConnectionID?, elsewhere: CalleesElsewhere,
        into list: inout EffectList
    ) throws(CoreError) -> Call {
        let byServer = connection == nil
        guard FieldRules.isValidID(params.receiverId) else {
            throw .badRequest("data.receiverId: \(FieldRules.idRuleDescription)")
        }
        let timeout = params.timeout ?? configuration.defaultRingTimeout
        let allowed = configuration.allowedRingTimeouts
        guard allowed.contains(timeout) else {
            throw .badRequest("data.timeout: expected \(allowed.lowerBound) to \(allowed.upperBound) seconds")
        }
        if let metadata = params.metadata {
            try checkMetadata(.object(metadata))
        }
        if params.receiverType == .user, params.receiverId == caller.uid {
            throw .callingSelf
        }
        guard engagedCall[caller.uid] == nil else { throw .callInProgress }
        guard byServer || callStarts.allows(caller.uid, limit: configuration.maxCallsPerMinute, now: monotonicNow) else {
            throw .callRateLimited(configuration.maxCallsPerMinute)
        }
        let (ringing, busy, receiver) = try callees(of: params, from: caller, byServer: byServer, elsewhere: elsewhere)
        let callWaiting: Bool? = params.callWaiting == true ? true : nil
        let sessionId = freshSessionID()
        let ringDeadline = nowMillis + Int64(timeout) * 1000
        let call = Call(
            sessionId: sessionId, callType: params.callType, receiverType: params.receiverType,
            callStatus: .initiated, initiator: caller, receiver: receiver, initiatedAt: nowSeconds,
            metadata: params.metadata, callUUID: CallUUID.of(sessionId: sessionId),
            ringExpiresAt: Self.ringExpiry(ofDeadline: ringDeadline), callWaiting: callWaiting)
        let live = LiveCall(
            call: call, ordinal: try nextOrdinal(), ringing: ringing, busySkipped: busy, changes: logChanges)
        // The call log names callees as they are now: later they may be gone from the directory.
        for uid in ringing + busy {
            if let user = directory.profile(of: uid) ?? elsewhere.profiles[uid] {
                live.remember(user)
            }
        }
        if !byServer {
            callStarts.record(caller.uid, now: monotonicNow)
        }
        list.report(.callInitiated, WebhookData(call: call))
        note(.initiated, in: live, uid: caller.uid, device: connection)
        for uid in busy {
            note(.busy, in: live, uid: uid)
        }
        guard !ringing.isEmpty else {
            // Everyone is busy: the call ends at once, and every device of the caller learns why.
            let busyUser = profile(of: busy[0])
            return finish(
                live, as: .busy, at: call.initiatedAt, by: busyUser, closingSessionFor: [], excluding: nil, into: &list
            ) { call in
                [Delivery(push: .outgoingCallRejected(call: call, by: busyUser), users: [call.initiator.uid])]
            }
        }
        register(live, ringingUntil: ringDeadline, into: &list)
        list.send(.incomingCallReceived(call: live.call), to: ringing)
        startRingProgress(
            of: live, waking: noteRung(ringing, in: live, elsewhere: elsewhere, into: &list), announcing: byServer)
        return live.call
    }

    /// Notes the ring of each of `uids` in `live`: a `rung` step with the devices it reached, and
    /// `call.ringing` for the backend (after `call.invited` for an invitee of `inviter`). A callee
    /// with no device connected is woken by the backend's push, on `call.ringing`: returns them,
    /// when the backend hears of it.
    func noteRung(
        _ uids: [String], in live: LiveCall, invitedBy inviter: User? = nil, elsewhere: CalleesElsewhere,
        into list: inout EffectList
    ) -> Set<String> {
        let wakes = reportsWebhookEvents && wakesCalleesByPush
        var waking: Set<String> = []
        let now = nowMillis
        for uid in uids {
            let user = live.profiles[uid] ?? profile(of: uid)
            let onlineDevices = elsewhere.onlineDevices[uid] ?? directory.connections(of: uid).count
            if onlineDevices == 0, wakes {
                waking.insert(uid)
            }
            live.steps.add(CallStep(at: now, step: .rung, uid: uid, devices: onlineDevices, wakeUp: onlineDevices == 0 && wakes))
            if let inviter {
                list.report(.callInvited, WebhookData(call: live.call, user: user, by: inviter))
            }
            list.report(.callRinging, WebhookData(call: live.call, user: user, onlineDevices: onlineDevices))
        }
        return waking
    }

    /// `metadata` is kept with the call, sent in every push about it and stored in its log, so it
    /// is bounded in nesting and in bytes of compact JSON.
    private func checkMetadata(_ metadata: JSONValue) throws(CoreError) {
        guard metadata.depth <= configuration.maxMetadataDepth else {
            throw .badRequest("data.metadata: nests deeper than \(configuration.maxMetadataDepth) levels")
        }
        guard let bytes = try? metadata.encoded(), bytes.count <= configuration.maxMetadataBytes else {
            throw .badRequest("data.metadata: larger than \(configuration.maxMetadataBytes) bytes of JSON")
        }
    }

    /// Who a new call rings and who it skips as busy (with `autoBusy`, a callee in an answered
    /// call), and the receiver it shows. A caller rings only a group they are a member of, but
    /// the backend rings any group on a caller's behalf (`byServer`).
    private func callees(
        of params: InitiateCallParams, from caller: User, byServer: Bool, elsewhere: CalleesElsewhere
    ) throws(CoreError) -> (ringing: [String], busy: [String], receiver: CallReceiver) {
        let receiver: CallReceiver
        let others: [String]
        switch params.receiverType {
        case .user:
            let callee = directory.profile(of: params.receiverId) ?? elsewhere.profiles[params.receiverId]
                ?? profile(of: params.receiverId)
            receiver = .user(callee)
            others = [callee.uid]
        case .group:
            guard let group = groups.group(params.receiverId), byServer || group.contains(caller.uid) else {
                throw .groupNotFound
            }
            others = group.members.filter { $0 != caller.uid }
            guard !others.isEmpty else {
                throw .badRequest("data.receiverId: the group has no other member to ring")
            }
            receiver = .group(group.summary)
        }
        var ringing: [String] = []
        var busy: [String] = []
        for uid in others {
            if configuration.autoBusy, params.callWaiting != true, isInOngoingCall(uid) || elsewhere.answered.contains(uid) {
                busy.append(uid)
            } else {
                ringing.append(uid)
            }
        }
        return (ringing, busy, receiver)
    }

    private func accept(
        _ sessionId: String, from connection: ConnectionID, into list: inout EffectList
    ) throws(CoreError) -> Call {
        let user = try requireUser(connection)
        let live = try liveCall(sessionId)
        guard user.uid != live.callerUID else { throw .notParticipant("only a callee accepts a call") }
        guard let state = live.state(of: user.uid) else { throw .notParticipant("this call does not ring you") }
        guard state == .ringing else { throw .member(state) }
        if let current = engagedCall[user.uid] {
            guard live.call.callWaiting == true, let other = calls[current] else { throw .callInProgress }
            try holdAway(user.uid, in: other, into: &list)
        }

        let joinedBefore = live.members(in: .joined)
        move(user.uid, to: .joined, in: live, into: &list)
        live.remember(user)
        if live.call.callStatus == .initiated {
            live.call.callStatus = .ongoing
            live.call.joinedAt = nowSeconds
            live.startStay(of: live.callerUID, at: nowSeconds)
            list.engagementChanged(live.callerUID)
            if directory.connections(of: live.callerUID).isEmpty {
                startGrace(for: live.callerUID, in: live.id, lasting: configuration.participantGracePeriod)
            }
        }
        live.startStay(of: user.uid, at: nowSeconds)
        if !live.isGroup {
            live.call.receiver = .user(user)
        }
        let call = live.call
        list.send(.outgoingCallAccepted(call: call, by: user), to: joinedBefore)
        list.send(.incomingCallCanceled(call: call, reason: .answeredElsewhere), to: [user.uid], excluding: connection)
        list.report(.callAccepted, WebhookData(call: call, user: user))
        note(.accepted, in: live, uid: user.uid, device: connection)
        return call
    }

    private func reject(
        _ params: RejectCallParams, from connection: ConnectionID, into list: inout EffectList
    ) throws(CoreError) -> Call {
        let user = try requireUser(connection)
        let live = try liveCall(params.sessionId)
        if params.status == .cancelled {
            guard user.uid == live.callerUID else { throw .notParticipant("only the caller cancels a call") }
            guard live.call.callStatus == .initiated else {
                throw .alreadyJoined("the call was answered: end it with endCall")
            }
            return cancelRinging(live, by: user, reason: .hungUp, excluding: connection, into: &list)
        }
        guard user.uid != live.callerUID else {
            throw .notParticipant("the caller cancels a call with status cancelled")
        }
        guard let state = live.state(of: user.uid) else { throw .notParticipant("this call does not ring you") }
        guard state == .ringing else { throw .member(state) }

        move(user.uid, to: .declined, in: live, into: &list)
        note(.declined, in: live, uid: user.uid, device: connection, status: params.status == .busy ? .busy : .rejected)
        if live.isGroup, live.call.callStatus != .initiated || live.ringingCount > 0 {
            list.send(.incomingCallCanceled(call: live.call, reason: .rejectedElsewhere), to: [user.uid], excluding: connection)
            list.report(.callDeclined, WebhookData(call: live.call, user: user))
            return live.call
        }
        // A 1:1 decline, or the last member of a group still ringing declined: the call ends.
        if !live.isGroup {
            live.call.receiver = .user(user)
        }
        let status: CallStatus = live.isGroup ? .rejected : (params.status == .busy ? .busy : .rejected)
        return finish(
            live, as: status, by: user, closingSessionFor: [live.callerUID], excluding: connection, into: &list
        ) { call in
            [Delivery(push: .outgoingCallRejected(call: call, by: user), users: [call.initiator.uid]),
             Delivery(push: .incomingCallCanceled(call: call, reason: .rejectedElsewhere), users: [user.uid],
                      excluding: connection)]
        }
    }

    private func end(
        _ sessionId: String, from connection: ConnectionID, into list: inout EffectList
    ) throws(CoreError) -> Call {
        let user = try requireUser(connection)
        let live = try liveCall(sessionId)
        if live.call.callStatus == .initiated, user.uid == live.callerUID {
            return cancelRinging(live, by: user, reason: .hungUp, excluding: connection, into: &list)
        }
        guard let state = live.state(of: user.uid) else { throw .notParticipant("you are not in this call") }
        guard state == .joined else { throw .member(state) }
        return depart(live, user: user, reason: .hungUp, excluding: connection, into: &list)
    }

    // MARK: Timers

    /// The ring timeout passed: a call nobody answered ends `unanswered`; an answered group call
    /// stops ringing the members still rung, who missed it, and goes on.
    func ringTimedOut(_ sessionId: String, into list: inout EffectList) {
        guard let live = calls[sessionId] else { return }
        live.ringTimer = nil
        guard live.call.callStatus == .initiated else {
            let ringing = live.members(in: .ringing)
            for uid in ringing {
                move(uid, to: .missed, in: live, into: &list)
                note(.missed, in: live, uid: uid)
            }
            list.send(.incomingCallCanceled(call: live.call, reason: .unanswered), to: ringing)
            for uid in ringing {
                list.report(.callMissed, WebhookData(call: live.call, user: live.profiles[uid] ?? profile(of: uid)))
            }
            return
        }
        _ = finish(live, as: .unanswered, closingSessionFor: [live.callerUID], excluding: nil, into: &list) { call in
            [Delivery(push: .outgoingCallRejected(call: call, by: nil), users: [call.initiator.uid])]
        }
    }

    /// A user's grace period in a call passed with none of their devices back: the caller of a
    /// ringing call cancels it, a participant of an answered one leaves it (`disconnected`).
    func graceEnded(for uid: String, in sessionId: String, into list: inout EffectList) {
        cancelGrace(for: uid, in: sessionId)
        guard let live = calls[sessionId],
              live.state(of: uid) == .joined,
              let user = live.profiles[uid]
        else { return }
        switch live.call.callStatus {
        case .initiated:
            _ = cancelRinging(live, by: user, reason: .disconnected, excluding: nil, into: &list)
        default:
            _ = depart(live, user: user, reason: .disconnected, excluding: nil, into: &list)
        }
    }
}
