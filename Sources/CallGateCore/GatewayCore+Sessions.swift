import CallGateProtocol

/// The in-call session people join: a ringing call's, or a standalone (`meet`) one. Its ops,
/// the timers that end it, and how people leave it. Service thread only.
extension GatewayCore {
    // MARK: Ops

    /// Joins `connection` to session `sessionId`. The server calls it once it has verified the
    /// call token and that the token's uid is this connection's user.
    ///
    /// Checks, in order: logged in; `idleTimeout` (nil means `defaultIdleTimeout`) is allowed,
    /// else `ERR_BAD_REQUEST`; the id is well-formed (`ERR_INVALID_SESSION_ID`). A live ringing
    /// call: its caller may join while it rings or is ongoing, a callee once they accepted
    /// (ringing: `ERR_NOT_PARTICIPANT` "accept the call first"; declined, left or missed: the
    /// usual member error; not rung: `ERR_NOT_PARTICIPANT`). A finished call: its terminal error.
    /// A live standalone session is joined; any other id starts one (`meet`, audio if
    /// `audioOnly`, else video) that lasts until its last participant leaves; a user already in
    /// `maxMeetSessionsPerUser` of them gets `ERR_TOO_MANY_SESSIONS`, and one who started
    /// `maxCallsPerMinute` calls and meetings in the last minute `ERR_RATE_LIMITED`. The same
    /// device joining twice: `ERR_CALL_ALREADY_JOINED`.
    ///
    /// A user may join from several devices; they are one participant, joined when the first
    /// device joined. A new participant sends `onUserJoined {sessionId, user}` and
    /// `onUserListChanged {sessionId, participants}` to every device of every participant (the
    /// new one's other devices included) except `connection`, which gets the session as reply; a
    /// further device of a user already in sends nothing. A user who joins again before their
    /// grace period (all devices gone) passes stays in. A user alone in the session is removed
    /// after their idle timeout (counted from when they became alone); the latest join of a user
    /// sets theirs.
    public func joinSession(
        sessionId: String, from connection: ConnectionID, audioOnly: Bool, idleTimeout: Int?
    ) -> Outcome<Session> {
        transition { list throws(CoreError) in
            try join(sessionId, from: connection, audioOnly: audioOnly, idleTimeout: idleTimeout, into: &list)
        }
    }

    /// Takes `connection` out of session `sessionId`; only a device that joined may leave
    /// (`ERR_NOT_PARTICIPANT`), and the usual id and call errors come first.
    ///
    /// While another device of the user stays joined, nothing else happens. When their last
    /// joined device leaves, the user leaves: the users still in get `onUserLeft {sessionId,
    /// user}` and `onUserListChanged`. Then, in a ringing call, leaving the session is leaving
    /// the call, as `endCall` (`onCallEndedMessageReceived` with reason `hungUp`; a 1:1 call
    /// ends, a group call ends below two participants, the caller of a call still ringing
    /// cancels it); a standalone session ends with its last participant. A session that ends
    /// sends `onCallEnded {sessionId}` to every device of everyone who was in it or in its call,
    /// except `connection`. The reply is the session after the op (no participants once it
    /// ended).
    public func leaveSession(sessionId: String, from connection: ConnectionID) -> Outcome<Session> {
        transition { list throws(CoreError) in
            let (session, member) = try joinedSession(sessionId, from: connection)
            _ = session.detach(connection)
            unlink(connection, from: session.id)
            if session.members[member.user.uid]?.devices.isEmpty == true {
                departSession(member.user.uid, from: session, reason: .hungUp, actor: connection, into: &list)
            }
            return session.snapshot
        }
    }

    /// Sets the mute flags of `connection`'s user in a session (per user, not per device); an
    /// absent flag keeps its value. Every device of every participant except `connection` gets
    /// `onUserMuted {sessionId, user, audioMuted, videoMuted}` with the flags now.
    ///
    /// Only a device that joined the session may do this (`ERR_NOT_PARTICIPANT`); a malformed id
    /// gets `ERR_INVALID_SESSION_ID`, an unknown one `ERR_CALL_NOT_FOUND`.
    public func setMuted(_ params: SetMutedParams, from connection: ConnectionID) -> Outcome<Session> {
        transition { list throws(CoreError) in
            let (session, member) = try joinedSession(params.sessionId, from: connection)
            let muted = session.setMuted(
                member, audio: params.audioMuted, video: params.videoMuted, at: nowSeconds,
                keeping: configuration.maxMuteChangesKept)
            list.send(
                .userMuted(sessionId: session.id, user: muted.user, audioMuted: muted.audioMuted, videoMuted: muted.videoMuted),
                to: session.uids, excluding: connection)
            return session.snapshot
        }
    }

    /// Starts (`on` true) or stops the recording of a session. Starting a running recording or
    /// stopping when none runs: `ERR_BAD_REQUEST`. Every device of every participant except
    /// `connection` gets `onRecordingToggled {sessionId, recordingStarted, user}`. The history
    /// keeps each recording with its start, end and duration; a session has at most
    /// `maxRecordingsPerSession` (`ERR_TOO_MANY_RECORDINGS`). Same access rules as `setMuted`.
    public func setRecording(sessionId: String, on: Bool, from connection: ConnectionID) -> Outcome<Session> {
        transition { list throws(CoreError) in
            let (session, member) = try joinedSession(sessionId, from: connection)
            guard session.recording != on else {
                throw .badRequest(on ? "the session is already being recorded" : "the session is not being recorded")
            }
            if on, session.history.recordings.count >= configuration.maxRecordingsPerSession {
                throw .tooManyRecordings(configuration.maxRecordingsPerSession)
            }
            session.setRecording(on, at: nowSeconds)
            if let recording = session.history.recordings.last {
                note(on ? .recordingStarted : .recordingStopped, in: session, uid: member.user.uid, rid: recording.rid)
                list.report(
                    on ? .recordingStarted : .recordingStopped,
                    WebhookData(call: session.call?.call, sessionId: session.id, user: member.user,
                                recording: recording.logRecording))
            }
            list.send(
                .recordingToggled(sessionId: session.id, recordingStarted: on, user: member.user),
                to: session.uids, excluding: connection)
            return session.snapshot
        }
    }

    /// Turns the session's audio call into a video call, the ringing call's `callType` included
    /// (so later Call replies and pushes show `video`). Already video: `ERR_BAD_REQUEST`. Every
    /// device of every participant except `connection` gets `onCallSwitchedToVideo {sessionId,
    /// requestedBy}`. Same access rules as `setMuted`.
    public func switchToVideo(sessionId: String, from connection: ConnectionID) -> Outcome<Session> {
        transition { list throws(CoreError) in
            let (session, member) = try joinedSession(sessionId, from: connection)
            guard session.callType != .video else { throw .badRequest("the call is already a video call") }
            session.switchToVideo(by: member.user.uid, at: nowSeconds)
            list.send(
                .callSwitchedToVideo(sessionId: session.id, requestedBy: member.user), to: session.uids,
                excluding: connection)
            return session.snapshot
        }
    }

    /// The history of session `sessionId`: live (stays in progress counted up to now), or
    /// finished and not yet forgotten (kept as long as finished calls are). Nil otherwise.
    public func sessionHistory(_ sessionId: String) -> SessionHistory? {
        if let session = sessions[sessionId] {
            return session.history(at: nowSeconds)
        }
        return finishedHistories[sessionId]
    }

    private func join(
        _ sessionId: String, from connection: ConnectionID, audioOnly: Bool, idleTimeout: Int?,
        into list: inout EffectList
    ) throws(CoreError) -> Session {
        let user = try requireUser(connection)
        let timeout = idleTimeout ?? configuration.defaultIdleTimeout
        let allowed = configuration.allowedIdleTimeouts
        guard allowed.contains(timeout) else {
            throw .badRequest("data.idleTimeout: expected \(allowed.lowerBound) to \(allowed.upperBound) seconds")
        }
        let session = try sessionToJoin(sessionId, as: user, audioOnly: audioOnly)
        guard session.uid(joinedFrom: connection) == nil else {
            throw .alreadyJoined("this device already joined this session")
        }
        if var member = session.members[user.uid], let timer = member.graceTimer {
            timers.cancel(timer)
            member.graceTimer = nil
            session.update(member)
        }
        let isNew = session.join(user, from: connection, idleTimeout: timeout, at: nowSeconds)
        joinedSessions[connection, default: []].insert(session.id)
        refreshIdleTimer(session)
        let snapshot = session.snapshot
        if isNew {
            let others = session.uids
            list.send(.userJoined(sessionId: session.id, user: user), to: others, excluding: connection)
            list.send(
                .userListChanged(sessionId: session.id, participants: snapshot.participants), to: others,
                excluding: connection)
            list.report(.participantJoined, WebhookData(call: session.call?.call, sessionId: session.id, user: user))
            note(.joined, in: session, uid: user.uid, device: connection)
        }
        return snapshot
    }

    /// The session `user` may join under `sessionId`, started if need be.
    private func sessionToJoin(_ sessionId: String, as user: User, audioOnly: Bool) throws(CoreError) -> LiveSession {
        guard SessionIDFormat.isValid(sessionId) else { throw .invalidSessionID }
        if sessions[sessionId]?.removed.contains(user.uid) == true {
            throw .notParticipant("the host removed you from this session")
        }
        if let live = calls[sessionId] {
            switch live.state(of: user.uid) {
            case .joined?:
                return session(of: live)
            case .ringing?:
                throw .notParticipant("accept the call first")
            case let state?:
                throw .member(state)
            case nil:
                throw .notParticipant("you are not in this call")
            }
        }
        if let call = finishedCalls[sessionId] {
            throw .finished(call.callStatus)
        }
        if let session = sessions[sessionId] {
            if session.members[user.uid] == nil {
                try checkMeetAttendance(of: user.uid)
            }
            return session
        }
        try checkMeetAttendance(of: user.uid)
        // A new meeting is a call start: it counts against the same budget as initiateCall.
        guard callStarts.allows(user.uid, limit: configuration.maxCallsPerMinute, now: monotonicNow) else {
            throw .callRateLimited(configuration.maxCallsPerMinute)
        }
        let meet = try startMeet(sessionId, callType: audioOnly ? .audio : .video)
        callStarts.record(user.uid, now: monotonicNow)
        return meet
    }

    /// A user may be in `maxMeetSessionsPerUser` meet sessions at once: each is a session, a
    /// timer and a call log entry that lives as long as they stay.
    private func checkMeetAttendance(of uid: String) throws(CoreError) {
        guard meetAttendance.count(of: uid) < configuration.maxMeetSessionsPerUser else {
            throw .tooManySessions(configuration.maxMeetSessionsPerUser)
        }
    }

    // MARK: Timers

    /// Keeps the idle timer of `session` in step with who is in it: while exactly one user is
    /// in, it runs for their idle timeout from the moment they became alone; otherwise it is off.
    func refreshIdleTimer(_ session: LiveSession) {
        if let timer = session.idleTimer {
            timers.cancel(timer)
            session.idleTimer = nil
        }
        guard session.uids.count == 1, let member = session.members[session.uids[0]] else {
            session.aloneSince = nil
            return
        }
        let since = session.aloneSince ?? monotonicNow
        session.aloneSince = since
        session.idleTimer = timers.schedule(.idle(sessionId: session.id), at: since + Int64(member.idleTimeout) * 1000)
    }

    /// The only user of a session was alone for their idle timeout: their devices get
    /// `onSessionTimeout`, they are removed, and the session ends (with the ringing call it
    /// belongs to: `cancelled` if still ringing, else `ended`).
    func idleTimedOut(_ sessionId: String, into list: inout EffectList) {
        guard let session = sessions[sessionId], session.uids.count == 1 else { return }
        session.idleTimer = nil
        let uid = session.uids[0]
        list.send(.sessionTimeout(sessionId: sessionId), to: [uid])
        removeFromSession(uid, session, reason: Self.sessionTimedOut, into: &list)
        guard let live = calls[sessionId] else {
            closeSession(sessionId, alsoTelling: [uid], excluding: nil, into: &list)
            return
        }
        if live.call.callStatus == .initiated {
            _ = cancelRinging(live, excluding: nil, into: &list)
            return
        }
        let audience = [uid] + live.members(in: .joined)
        _ = finish(live, as: .ended, closingSessionFor: audience, excluding: nil, into: &list) { _ in [] }
    }

    /// A device went away: it is no longer joined to any session, and a user left with no joined
    /// device in a session gets `participantGracePeriod` to join again from some device.
    /// The device is remembered as departed for that long too (see `resumeSessions`).
    func detachFromSessions(_ connection: ConnectionID) {
        guard let ids = joinedSessions.removeValue(forKey: connection) else { return }
        var departed: DepartedDevice?
        for id in ids.sorted() {
            guard let session = sessions[id], let uid = session.detach(connection) else { continue }
            departed = departed ?? DepartedDevice(uid: uid)
            departed?.sessions.append(id)
            guard var member = session.members[uid], member.devices.isEmpty else { continue }
            member.graceTimer = timers.schedule(
                .sessionGrace(uid: uid, sessionId: id),
                at: monotonicNow + configuration.participantGracePeriod.wholeMilliseconds)
            session.update(member)
        }
        if let departed {
            departedDevices.add(
                connection, departed, until: monotonicNow + configuration.participantGracePeriod.wholeMilliseconds,
                now: monotonicNow)
        }
    }

    /// A session member's grace period passed with none of their devices joined again: they
    /// leave the session as if they had sent `leaveSession`, with reason `disconnected`.
    func sessionGraceEnded(for uid: String, in sessionId: String, into list: inout EffectList) {
        guard let session = sessions[sessionId], var member = session.members[uid], member.devices.isEmpty else { return }
        member.graceTimer = nil
        session.update(member)
        departSession(uid, from: session, reason: .disconnected, actor: nil, into: &list)
    }

    // MARK: Lifecycle

    /// The live session `sessionId` names and the member `connection` joined it as. A malformed
    /// id, a live call nobody joined this way, a finished call or session, and an unknown id each
    /// get their own error.
    func joinedSession(_ sessionId: String, from connection: ConnectionID) throws(CoreError) -> (LiveSession, SessionMember) {
        _ = try requireUser(connection)
        guard SessionIDFormat.isValid(sessionId) else { throw .invalidSessionID }
        let session = try liveSession(sessionId, unjoined: .notJoined)
        guard let uid = session.uid(joinedFrom: connection), let member = session.members[uid] else {
            throw .notJoined
        }
        return (session, member)
    }

    /// The live session `sessionId` (a well-formed id); for a live call nobody joined the session
    /// of, `unjoined`; for a finished call or meeting, its status error; else
    /// `ERR_CALL_NOT_FOUND`.
    func liveSession(_ sessionId: String, unjoined: CoreError) throws(CoreError) -> LiveSession {
        if let session = sessions[sessionId] {
            return session
        }
        if calls[sessionId] != nil {
            throw unjoined
        }
        if let call = finishedCalls[sessionId] {
            throw .finished(call.callStatus)
        }
        if finishedHistories[sessionId] != nil {
            throw .finished(.ended)
        }
        throw .callNotFound
    }

    /// The session of a live ringing call, started now if nobody joined it yet.
    func session(of live: LiveCall) -> LiveSession {
        if let session = sessions[live.id] {
            return session
        }
        let session = LiveSession(of: live, at: nowSeconds, changes: logChanges)
        sessions[session.id] = session
        return session
    }

    /// A new standalone session. The history of a finished one with the same id is dropped: a
    /// meeting link may be used again as soon as its last session ended.
    func startMeet(_ sessionId: String, callType: CallType) throws(CoreError) -> LiveSession {
        let logID = try nextOrdinal()
        finishedHistories[sessionId] = nil
        if let timer = historyExpiry.removeValue(forKey: sessionId) {
            timers.cancel(timer)
        }
        let session = LiveSession(
            meet: sessionId, callType: callType, logID: logID, startedAt: nowSeconds,
            attendance: meetAttendance, changes: logChanges)
        sessions[sessionId] = session
        return session
    }

    /// Takes `uid` out of `session` (with every device of theirs) and tells the users still in:
    /// `onUserLeft` and `onUserListChanged` to every device of each. Nothing else follows from it
    /// here; the timeline notes why (`reason`). Returns the member who left, nil if `uid` was
    /// not in.
    @discardableResult
    func removeFromSession(
        _ uid: String, _ session: LiveSession, reason: String, into list: inout EffectList
    ) -> SessionMember? {
        guard let member = session.remove(uid, at: nowSeconds) else { return nil }
        release(member, from: session.id)
        list.report(.participantLeft, WebhookData(call: session.call?.call, sessionId: session.id, user: member.user))
        note(.left, in: session, uid: uid, reason: reason)
        list.send(.userLeft(sessionId: session.id, user: member.user), to: session.uids)
        list.send(.userListChanged(sessionId: session.id, participants: session.snapshot.participants), to: session.uids)
        refreshIdleTimer(session)
        return member
    }

    /// `uid` leaves the session (their last joined device left, or their grace period passed),
    /// and what follows: in a ringing call they leave the call too, as with `endCall` (a 1:1
    /// call ends, a group call ends below two participants, the caller of a call still ringing
    /// cancels it), which ends the session when the call ends; a standalone session ends with
    /// its last participant. `actor` is the connection that asked, if any.
    func departSession(
        _ uid: String, from session: LiveSession, reason: EndReason, actor: ConnectionID?, into list: inout EffectList
    ) {
        guard let member = removeFromSession(uid, session, reason: reason.rawValue, into: &list) else { return }
        guard let live = calls[session.id] else {
            if session.uids.isEmpty {
                closeSession(session.id, alsoTelling: [uid], excluding: actor, into: &list)
            }
            return
        }
        guard live.state(of: uid) == .joined else { return }
        if live.call.callStatus == .initiated {
            _ = cancelRinging(live, by: member.user, reason: reason, excluding: actor, into: &list)
        } else {
            _ = depart(live, user: member.user, reason: reason, excluding: actor, into: &list)
        }
    }

    /// Ends session `sessionId`, if it lives: everyone in it leaves, a running recording stops,
    /// its history is kept for `terminalRetention`, and `onCallEnded` goes to every device of
    /// `alsoTelling` and of everyone still in, except `excluded` (the connection that asked).
    func closeSession(
        _ sessionId: String, alsoTelling: [String], excluding excluded: ConnectionID?, into list: inout EffectList
    ) {
        guard let session = sessions.removeValue(forKey: sessionId) else { return }
        var seen = Set<String>()
        let audience = (alsoTelling + session.uids).filter { seen.insert($0).inserted }
        let wasRecording = session.recording
        let call = session.call?.call
        for member in session.close(at: nowSeconds) {
            release(member, from: sessionId)
            list.report(.participantLeft, WebhookData(call: call, sessionId: sessionId, user: member.user))
            note(.left, in: session, uid: member.user.uid, reason: Self.sessionClosed)
        }
        if wasRecording, let recording = session.history.recordings.last {
            list.report(.recordingStopped, WebhookData(call: call, sessionId: sessionId, recording: recording.logRecording))
            note(.recordingStopped, in: session, rid: recording.rid)
        }
        if let timer = session.idleTimer {
            timers.cancel(timer)
            session.idleTimer = nil
        }
        finishedHistories[sessionId] = session.history
        historyExpiry[sessionId] = timers.schedule(
            .forgetHistory(sessionId: sessionId),
            at: monotonicNow + configuration.terminalRetention.wholeMilliseconds)
        list.send(.callEnded(sessionId: sessionId), to: audience, excluding: excluded)
    }

    /// Cluster mode: forgets session `sessionId`, which another node runs now, without a word to
    /// anyone and without writing it: its new owner does both.
    func forgetSession(_ sessionId: String) {
        guard let session = sessions.removeValue(forKey: sessionId) else { return }
        for member in session.close(at: nowSeconds) {
            release(member, from: sessionId)
        }
        if let timer = session.idleTimer {
            timers.cancel(timer)
            session.idleTimer = nil
        }
        logChanges.unmark(meet: session)
    }

    /// Forgets that `member`'s devices joined session `sessionId` and stops their grace period.
    private func release(_ member: SessionMember, from sessionId: String) {
        if let timer = member.graceTimer {
            timers.cancel(timer)
        }
        for device in member.devices {
            unlink(device, from: sessionId)
        }
    }

    /// Forgets that `connection` joined session `sessionId`.
    func unlink(_ connection: ConnectionID, from sessionId: String) {
        joinedSessions[connection]?.remove(sessionId)
        if joinedSessions[connection]?.isEmpty == true {
            joinedSessions[connection] = nil
        }
    }
}
