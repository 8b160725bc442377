import CallGateProtocol

/// A call's life in the routing tables: registered when it starts, its users moved between
/// ringing, joined and gone, their grace periods, and the one place where it finishes (or is
/// relinquished to a node that took it over). The ops that drive it are in `GatewayCore+Calls`.
/// Service thread only.
extension GatewayCore {
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

    /// Every user a live call rings, engages or waits for (held for a waiting call). Service
    /// thread only.
    public var usersWithActiveCalls: Set<String> {
        Set(engagedCall.keys).union(ringingCalls.keys).union(heldAway.keys)
    }

    /// Whether `uid` takes part in an answered call, which makes them busy for new calls.
    func isInOngoingCall(_ uid: String) -> Bool {
        guard let sessionId = engagedCall[uid] else { return false }
        return calls[sessionId]?.call.callStatus == .ongoing
    }

    /// The live calls `uid` rings for or takes part in, oldest first. Service thread only.
    public func activeCalls(of uid: String) -> [Call] {
        var ids = ringingCalls[uid] ?? []
        for taking in [engagedCall[uid]].compactMap({ $0 }) + (heldAway[uid] ?? []) where !ids.contains(taking) {
            ids.append(taking)
        }
        return ids.compactMap { calls[$0] }
            .sorted { $0.ordinal < $1.ordinal }
            .map(\.call)
    }

    /// Makes `live` live: indexes its caller and ringing users and starts its ring timeout,
    /// which passes at `deadline` (Unix milliseconds).
    func register(_ live: LiveCall, ringingUntil deadline: Int64, into list: inout EffectList) {
        calls[live.id] = live
        engagedCall[live.callerUID] = live.id
        list.engagementChanged(live.callerUID)
        for uid in live.members(in: .ringing) {
            addRinging(uid, live)
        }
        startRingTimeout(of: live, at: deadline)
    }

    /// Indexes `uid` as rung by `live`.
    func addRinging(_ uid: String, _ live: LiveCall) {
        ringingCalls[uid, default: []].append(live.id)
    }

    /// Starts `live`'s ring timeout, which passes at `deadline` (Unix milliseconds; at once if
    /// that is past).
    func startRingTimeout(of live: LiveCall, at deadline: Int64) {
        live.ringDeadline = deadline
        live.ringTimer = timers.schedule(.ringTimeout(sessionId: live.id), at: monotonicNow + max(0, deadline - nowMillis))
    }

    /// The wire's `ringExpiresAt` of a ring deadline: Unix seconds, rounded up.
    static func ringExpiry(ofDeadline deadline: Int64) -> Int64 {
        (deadline + 999) / 1000
    }

    /// Moves `uid` to `state` in `live`, keeping the ringing and engaged indexes and the user's
    /// grace timer in step. Cancels the ring timeout once nobody rings any more.
    func move(_ uid: String, to state: MemberState, in live: LiveCall, into list: inout EffectList) {
        let previous = live.state(of: uid)
        live.set(uid, state)
        if previous == .ringing {
            removeRinging(uid, live.id)
            stopRingProgress(of: uid, in: live)
        }
        if previous == .joined {
            disengage(uid, live.id, into: &list)
            live.endStay(of: uid, at: nowSeconds)
        }
        if state == .joined {
            engagedCall[uid] = live.id
            list.engagementChanged(uid)
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
            move(user.uid, to: .left, in: live, into: &list)
            let remaining = live.members(in: .joined)
            guard remaining.count < 2 else {
                if let session = sessions[live.id] {
                    removeFromSession(user.uid, session, reason: reason.rawValue, into: &list)
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
    /// (`onIncomingCallCanceled`, for the reason `status` gives, or `endedByServer`), and the
    /// call's session ends,
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
                disengage(uid, live.id, into: &list)
            default:
                break
            }
        }
        stopTimers(of: live)
        calls[live.id] = nil
        live.call.callStatus = status
        live.call.endedAt = now
        live.endAllStays(at: now)
        let call = live.call
        finishedCalls[call.sessionId] = call
        timers.schedule(.forget(sessionId: call.sessionId), at: monotonicNow + configuration.terminalRetention.wholeMilliseconds)
        list.finished(call)
        for notice in notices(call) {
            list.send(notice.push, to: notice.users, excluding: notice.excluding)
        }
        if let cancel = reason == .endedByServer ? .endedByServer : CancelReason(stopping: status) {
            list.send(.incomingCallCanceled(call: call, reason: cancel), to: ringing)
        }
        closeSession(call.sessionId, alsoTelling: audience, excluding: excluding, into: &list)
        if let type = WebhookEventType(terminal: status) {
            list.report(type, WebhookData(call: call, by: user, reason: reason))
        }
        // Now, to the millisecond: `endedAt` is whole seconds, and an auto-busy call's is the
        // second it started, which would put its end before its start.
        live.steps.add(CallStep(
            at: nowMillis, step: .finished, uid: user?.uid, status: status, reason: reason?.rawValue,
            serverReason: call.serverReason))
        return call
    }

    /// Cancels the ring timeout and the ring progress push of a call that stops living here.
    private func stopTimers(of live: LiveCall) {
        if let timer = live.ringTimer {
            timers.cancel(timer)
            live.ringTimer = nil
        }
        if let timer = live.tally?.timer {
            timers.cancel(timer)
            live.tally?.timer = nil
        }
    }

    /// Cluster mode: forgets the live calls and meetings `sessionIds`, which a survivor took over
    /// while this node was cut off from the cluster: its new owner runs them, so this Core sends
    /// nothing about them and writes nothing. The outcome names the users whose engagement
    /// ended here. Service thread only.
    public func relinquish(_ sessionIds: [String]) -> Outcome<Void> {
        transition { list in
            for sessionId in sessionIds {
                if let live = calls.removeValue(forKey: sessionId) {
                    for (uid, state) in live.memberships {
                        switch state {
                        case .ringing: removeRinging(uid, live.id)
                        case .joined: disengage(uid, live.id, into: &list)
                        default: break
                        }
                    }
                    stopTimers(of: live)
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

    func disengage(_ uid: String, _ sessionId: String, into list: inout EffectList) {
        forgetHeldAway(uid, sessionId)
        if engagedCall[uid] == sessionId {
            engagedCall[uid] = nil
            list.engagementChanged(uid)
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
