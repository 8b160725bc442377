import CallGateProtocol

/// The call that rings and has a status: its four ops, the timers that end it, and the one
/// place where a call finishes. Service thread only.
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
            try initiate(params, from: connection, elsewhere: elsewhere, into: &list)
        }
    }

    /// Answers a call that rings `connection`'s user.
    ///
    /// Only a callee still ringing may accept; the caller gets `ERR_NOT_PARTICIPANT`, a user who
    /// already joined `ERR_CALL_ALREADY_JOINED`, and a user engaged in another call
    /// `ERROR_CALL_IN_PROGRESS` (a user takes part in one call at a time). The first accept makes
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

    private func initiate(
        _ params: InitiateCallParams, from connection: ConnectionID, elsewhere: CalleesElsewhere,
        into list: inout EffectList
    ) throws(CoreError) -> Call {
        let caller = try requireUser(connection)
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
        guard callStarts.allows(caller.uid, limit: configuration.maxCallsPerMinute, now: monotonicNow) else {
            throw .callRateLimited(configuration.maxCallsPerMinute)
        }
        let (ringing, busy, receiver) = try callees(of: params, from: caller, elsewhere: elsewhere)
        let call = Call(
            sessionId: freshSessionID(), callType: params.callType, receiverType: params.receiverType,
            callStatus: .initiated, initiator: caller, receiver: receiver, initiatedAt: nowSeconds,
            metadata: params.metadata)
        let live = LiveCall(
            call: call, ordinal: try nextOrdinal(), ringing: ringing, busySkipped: busy, changes: logChanges)
        // The call log names callees as they are now: later they may be gone from the directory.
        for uid in ringing + busy {
            if let user = directory.profile(of: uid) ?? elsewhere.profiles[uid] {
                live.remember(user)
            }
        }
        callStarts.record(caller.uid, now: monotonicNow)
        list.report(.callInitiated, WebhookData(call: call))
        guard !ringing.isEmpty else {
            // Everyone is busy: the call ends at once, and every device of the caller learns why.
            let busyUser = profile(of: busy[0])
            return finish(
                live, as: .busy, at: call.initiatedAt, by: busyUser, closingSessionFor: [], excluding: nil, into: &list
            ) { call in
                [Delivery(push: .outgoingCallRejected(call: call, by: busyUser), users: [call.initiator.uid])]
            }
        }
        register(live, ringFor: timeout)
        list.send(.incomingCallReceived(call: live.call), to: ringing)
        for uid in ringing {
            list.report(.callRinging, WebhookData(
                call: live.call, user: live.profiles[uid] ?? profile(of: uid),
                onlineDevices: elsewhere.onlineDevices[uid] ?? directory.connections(of: uid).count))
        }
        return live.call
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
    /// call), and the receiver it shows.
    private func callees(
        of params: InitiateCallParams, from caller: User, elsewhere: CalleesElsewhere
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
            guard let group = groups.group(params.receiverId), group.contains(caller.uid) else {
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
            if configuration.autoBusy, isInOngoingCall(uid) || elsewhere.answered.contains(uid) {
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
        guard engagedCall[user.uid] == nil else { throw .callInProgress }

        let joinedBefore = live.members(in: .joined)
        move(user.uid, to: .joined, in: live)
        live.remember(user)
        if live.call.callStatus == .initiated {
            live.call.callStatus = .ongoing
            live.call.joinedAt = nowSeconds
            live.startStay(of: live.callerUID, at: nowSeconds)
            engagementChanges.append(live.callerUID)
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

        move(user.uid, to: .declined, in: live)
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
                move(uid, to: .missed, in: live)
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

    // MARK: Lifecycle

    /// The live call `sessionId` names; a malformed id, a finished call and an unknown call
    /// each get their own error.
    func liveCall(_ sessionId: String) throws(CoreError) -> LiveCall {
        guard SessionIDFormat.isValid(sessionId) else { throw .invalidSessionID }
        if let live = calls[sessionId] {
            return live
        }
        if let call = finishedCalls[sessionId] {
            throw .finished(call.callStatus)
        }
        throw .callNotFound
    }

    /// The call `uid` is engaged in (caller of a ringing call, or participant of an answered
    /// one) and whether it was answered; nil when they are in none. Service thread only.
    public func engagement(of uid: String) -> (sessionId: String, answered: Bool)? {
        guard let sessionId = engagedCall[uid], let live = calls[sessionId] else { return nil }
        return (sessionId, live.call.callStatus == .ongoing)
    }

    /// Every user engaged in a call, with the call. Service thread only.
    public var engagedUsers: [String: String] {
        engagedCall
    }

    /// Every user a live call rings or engages. Service thread only.
    public var usersWithActiveCalls: Set<String> {
        Set(engagedCall.keys).union(ringingCalls.keys)
    }

    /// Whether `uid` takes part in an answered call, which makes them busy for new calls.
    func isInOngoingCall(_ uid: String) -> Bool {
        guard let sessionId = engagedCall[uid] else { return false }
        return calls[sessionId]?.call.callStatus == .ongoing
    }

    /// The live calls `uid` rings for or takes part in, oldest first. Service thread only.
    public func activeCalls(of uid: String) -> [Call] {
        var ids = ringingCalls[uid] ?? []
        if let engaged = engagedCall[uid], !ids.contains(engaged) {
            ids.append(engaged)
        }
        return ids.compactMap { calls[$0] }
            .sorted { $0.ordinal < $1.ordinal }
            .map(\.call)
    }

    /// Makes `live` live: indexes its caller and ringing users and starts its ring timeout.
    func register(_ live: LiveCall, ringFor seconds: Int) {
        calls[live.id] = live
        engagedCall[live.callerUID] = live.id
        engagementChanges.append(live.callerUID)
        for uid in live.members(in: .ringing) {
            ringingCalls[uid, default: []].append(live.id)
        }
        let period = Int64(seconds) * 1000
        live.ringDeadline = nowMillis + period
        live.ringTimer = timers.schedule(.ringTimeout(sessionId: live.id), at: monotonicNow + period)
    }

    /// Moves `uid` to `state` in `live`, keeping the ringing and engaged indexes and the user's
    /// grace timer in step. Cancels the ring timeout once nobody rings any more.
    func move(_ uid: String, to state: MemberState, in live: LiveCall) {
        let previous = live.state(of: uid)
        live.set(uid, state)
        if previous == .ringing {
            removeRinging(uid, live.id)
        }
        if previous == .joined {
            disengage(uid, live.id)
            live.endStay(of: uid, at: nowSeconds)
        }
        if state == .joined {
            engagedCall[uid] = live.id
            engagementChanges.append(uid)
        }
        if previous == .ringing, live.ringingCount == 0, let timer = live.ringTimer {
            timers.cancel(timer)
            live.ringTimer = nil
        }
    }

    /// The caller's cancel of a call nobody answered, by `rejectCall` with status `cancelled`,
    /// by `endCall` or `leaveSession` (`by` the caller), or when the caller's grace period
    /// (`disconnected`) or the session's idle timeout passes.
    func cancelRinging(
        _ live: LiveCall, by user: User? = nil, reason: EndReason? = nil, excluding: ConnectionID?,
        into list: inout EffectList
    ) -> Call {
        finish(
            live, as: .cancelled, by: user, reason: reason, closingSessionFor: [live.callerUID], excluding: excluding,
            into: &list
        ) { _ in [] }
    }

    /// A joined participant of an answered call goes away, by `endCall`, `leaveSession` or when
    /// their grace period passes: a 1:1 call ends, a group call loses them and ends below two
    /// participants, with `onCallEndedMessageReceived` (`by` them, for `reason`) to every
    /// device of the participants but `excluding` (the connection that asked, which gets the
    /// reply instead). A group participant who leaves a call that goes on leaves its session
    /// (`onUserLeft`, `onUserListChanged` to those still in).
    func depart(
        _ live: LiveCall, user: User, reason: EndReason, excluding: ConnectionID?, into list: inout EffectList
    ) -> Call {
        var participants = live.members(in: .joined)
        if live.isGroup {
            move(user.uid, to: .left, in: live)
            let remaining = live.members(in: .joined)
            guard remaining.count < 2 else {
                if let session = sessions[live.id] {
                    removeFromSession(user.uid, session, into: &list)
                }
                list.send(
                    .callEndedMessageReceived(call: live.call, by: user, reason: reason), to: [user.uid],
                    excluding: excluding)
                return live.call
            }
            participants = [user.uid] + remaining
        }
        return finish(
            live, as: .ended, by: user, reason: reason, closingSessionFor: participants, excluding: excluding,
            into: &list
        ) { call in
            [Delivery(push: .callEndedMessageReceived(call: call, by: user, reason: reason), users: participants,
                      excluding: excluding)]
        }
    }

    /// The one place a call finishes with a terminal `status`: the call leaves the routing
    /// tables at once (so its users can call again) and is remembered for `terminalRetention`;
    /// then `notices(call)` go out, every user still ringing stops ringing
    /// (`onIncomingCallCanceled`, for the reason `status` gives), and the call's session ends,
    /// telling `audience` as well as those in it (`onCallEnded`, but not to `excluding`).
    /// The call ends now, or at `endedAt` (auto-busy: the second it started). The backend hears
    /// the terminal event, `by` whom and for which `reason`, after the session's own events.
    /// Returns the final call.
    func finish(
        _ live: LiveCall, as status: CallStatus, at endedAt: Int64? = nil, by user: User? = nil,
        reason: EndReason? = nil, closingSessionFor audience: [String], excluding: ConnectionID?,
        into list: inout EffectList, notices: (Call) -> [Delivery]
    ) -> Call {
        let now = endedAt ?? nowSeconds
        let ringing = live.members(in: .ringing)
        for (uid, state) in live.memberships {
            switch state {
            case .ringing:
                removeRinging(uid, live.id)
            case .joined:
                disengage(uid, live.id)
            default:
                break
            }
        }
        if let timer = live.ringTimer {
            timers.cancel(timer)
            live.ringTimer = nil
        }
        calls[live.id] = nil
        live.call.callStatus = status
        live.call.endedAt = now
        live.endAllStays(at: now)
        let call = live.call
        finishedCalls[call.sessionId] = call
        timers.schedule(.forget(sessionId: call.sessionId), at: monotonicNow + configuration.terminalRetention.wholeMilliseconds)
        finishedNow.append(call)
        for notice in notices(call) {
            list.send(notice.push, to: notice.users, excluding: notice.excluding)
        }
        if let reason = CancelReason(stopping: status) {
            list.send(.incomingCallCanceled(call: call, reason: reason), to: ringing)
        }
        closeSession(call.sessionId, alsoTelling: audience, excluding: excluding, into: &list)
        if let type = WebhookEventType(terminal: status) {
            list.report(type, WebhookData(call: call, by: user, reason: reason))
        }
        return call
    }

    /// Cluster mode: forgets the live calls and meetings `sessionIds`, which a survivor took over
    /// while this node was cut off from the cluster: its new owner runs them, so this Core sends
    /// nothing about them and writes nothing. The outcome names the users whose engagement
    /// ended here. Service thread only.
    public func relinquish(_ sessionIds: [String]) -> Outcome<Void> {
        transition { _ in
            for sessionId in sessionIds {
                if let live = calls.removeValue(forKey: sessionId) {
                    for (uid, state) in live.memberships {
                        switch state {
                        case .ringing: removeRinging(uid, live.id)
                        case .joined: disengage(uid, live.id)
                        default: break
                        }
                    }
                    if let timer = live.ringTimer {
                        timers.cancel(timer)
                        live.ringTimer = nil
                    }
                    logChanges.unmark(live)
                }
                forgetSession(sessionId)
            }
        }
    }

    /// The log id of every live call and meeting, by session id. Service thread only.
    public var liveCallIDs: [String: Int64] {
        var ids = calls.mapValues(\.ordinal)
        for (sessionId, session) in sessions {
            if let id = session.logID, ids[sessionId] == nil {
                ids[sessionId] = id
            }
        }
        return ids
    }

    /// Starts (or restarts) the grace period of `uid` in the call `sessionId`.
    func startGrace(for uid: String, in sessionId: String, lasting period: Duration) {
        cancelGrace(for: uid, in: sessionId)
        let timer = timers.schedule(
            .grace(uid: uid, sessionId: sessionId), at: monotonicNow + period.wholeMilliseconds)
        graceTimers[uid, default: [:]][sessionId] = timer
    }

    /// Stops the grace period of `uid` in the call `sessionId`, if one runs.
    func cancelGrace(for uid: String, in sessionId: String) {
        guard let timer = graceTimers[uid]?.removeValue(forKey: sessionId) else { return }
        timers.cancel(timer)
        if graceTimers[uid]?.isEmpty == true {
            graceTimers[uid] = nil
        }
    }

    private func removeRinging(_ uid: String, _ sessionId: String) {
        guard var ids = ringingCalls.removeValue(forKey: uid) else { return }
        ids.removeAll { $0 == sessionId }
        if !ids.isEmpty {
            ringingCalls[uid] = ids
        }
    }

    private func disengage(_ uid: String, _ sessionId: String) {
        if engagedCall[uid] == sessionId {
            engagedCall[uid] = nil
            engagementChanges.append(uid)
        }
        cancelGrace(for: uid, in: sessionId)
    }
}

extension CancelReason {
    /// Why devices still ringing stop when a call finishes with `status`; nil for a decline,
    /// which leaves nobody ringing.
    init?(stopping status: CallStatus) {
        switch status {
        case .cancelled: self = .cancelled
        case .unanswered: self = .unanswered
        case .ended: self = .ended
        case .initiated, .ongoing, .rejected, .busy: return nil
        }
    }
}
