import CallGateProtocol

extension GatewayCore {
    /// The authenticated user of `connection`, or `ERR_USER_NOT_LOGGED_IN`.
    func requireUser(_ connection: ConnectionID) throws(CoreError) -> User {
        guard let user = directory.user(of: connection) else { throw .notLoggedIn }
        return user
    }

    /// The live call `sessionId` names; a malformed id, a finished call and an unknown call
    /// each get their own error.
    func liveSession(_ sessionId: String) throws(CoreError) -> CallSession {
        guard SessionIDFormat.isValid(sessionId) else { throw .invalidSessionID }
        if let session = sessions[sessionId] {
            return session
        }
        if let call = finishedCalls[sessionId] {
            throw .finished(call.callStatus)
        }
        throw .callNotFound
    }

    /// A session id no live or remembered call or session has.
    func freshSessionID() -> String {
        while true {
            let candidate = sessionIDs.makeSessionID()
            if sessions[candidate] == nil, finishedCalls[candidate] == nil,
               rooms[candidate] == nil, finishedHistories[candidate] == nil {
                return candidate
            }
        }
    }

    /// The number of a new call or meeting.
    func nextOrdinal() -> Int64 {
        lastOrdinal += 1
        return lastOrdinal
    }

    /// Makes `session` live: indexes its caller and ringing users and starts its ring timeout.
    func register(_ session: CallSession, ringFor seconds: Int) {
        sessions[session.id] = session
        engagedCall[session.callerUID] = session.id
        for uid in session.members(in: .ringing) {
            ringingCalls[uid, default: []].append(session.id)
        }
        let period = Int64(seconds) * 1000
        session.ringDeadline = nowMillis + period
        session.ringTimer = timers.schedule(.ringTimeout(sessionId: session.id), at: monotonicNow + period)
        noteLogChange(session)
    }

    /// Moves `uid` to `state` in `session`, keeping the ringing and engaged indexes and the
    /// user's grace timer in step. Cancels the ring timeout once nobody rings any more.
    func move(_ uid: String, to state: MemberState, in session: CallSession) {
        let previous = session.state(of: uid)
        session.set(uid, state)
        if previous == .ringing {
            removeRinging(uid, session.id)
        }
        if previous == .joined {
            disengage(uid, session.id)
            session.endStay(of: uid, at: nowSeconds)
        }
        if state == .joined {
            engagedCall[uid] = session.id
        }
        if previous == .ringing, session.ringingCount == 0, let timer = session.ringTimer {
            timers.cancel(timer)
            session.ringTimer = nil
        }
        noteLogChange(session)
    }

    /// Ends `session` with a terminal `status`: the call leaves the routing tables at once (so
    /// its users can call again) and is remembered for `terminalRetention`. Returns the final call.
    func finish(_ session: CallSession, as status: CallStatus) -> Call {
        for (uid, state) in session.memberships {
            switch state {
            case .ringing:
                removeRinging(uid, session.id)
            case .joined:
                disengage(uid, session.id)
            default:
                break
            }
        }
        if let timer = session.ringTimer {
            timers.cancel(timer)
        }
        sessions[session.id] = nil
        session.call.callStatus = status
        session.call.endedAt = nowSeconds
        session.endAllStays(at: nowSeconds)
        remember(session.call)
        noteLogChange(session)
        return session.call
    }

    /// Keeps a finished call for `terminalRetention`.
    func remember(_ call: Call) {
        finishedCalls[call.sessionId] = call
        _ = timers.schedule(
            .forget(sessionId: call.sessionId),
            at: monotonicNow + configuration.terminalRetention.wholeMilliseconds)
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
        }
        cancelGrace(for: uid, in: sessionId)
    }
}
