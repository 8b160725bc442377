import CallGateProtocol

extension GatewayCore {
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
    /// `maxMeetSessionsPerUser` of them gets `ERR_TOO_MANY_SESSIONS`. The same device joining
    /// twice: `ERR_CALL_ALREADY_JOINED`.
    ///
    /// A user may join from several devices; they are one participant, joined when the first
    /// device joined. A new participant sends `onUserJoined {sessionId, user}` and
    /// `onUserListChanged {sessionId, participants}` to every device of every participant (the
    /// new one's other devices included) except `connection`, which gets the session as reply; a
    /// further device of a user already in sends nothing. A user who joins again before their
    /// grace period (all devices gone) passes stays in. A user alone in the session is removed
    /// after their idle timeout (counted from when they became alone); the latest join of a user
    /// sets theirs. Service thread only.
    public func joinSession(
        sessionId: String, from connection: ConnectionID, audioOnly: Bool, idleTimeout: Int?
    ) -> SessionOutcome {
        SessionOutcome.attempt { () throws(CoreError) in
            try join(sessionId, from: connection, audioOnly: audioOnly, idleTimeout: idleTimeout)
        }
    }

    private func join(
        _ sessionId: String, from connection: ConnectionID, audioOnly: Bool, idleTimeout: Int?
    ) throws(CoreError) -> SessionOutcome {
        let user = try requireUser(connection)
        let timeout = idleTimeout ?? configuration.defaultIdleTimeout
        let allowed = configuration.allowedIdleTimeouts
        guard allowed.contains(timeout) else {
            throw .badRequest("data.idleTimeout: expected \(allowed.lowerBound) to \(allowed.upperBound) seconds")
        }
        let room = try roomToJoin(sessionId, as: user, audioOnly: audioOnly)
        guard room.uid(joinedFrom: connection) == nil else {
            throw .alreadyJoined("this device already joined this session")
        }
        if var member = room.members[user.uid], let timer = member.graceTimer {
            timers.cancel(timer)
            member.graceTimer = nil
            room.update(member)
        }
        let isNew = room.join(user, from: connection, idleTimeout: timeout, at: nowSeconds)
        if isNew {
            noteLogChange(room)
        }
        joinedRooms[connection, default: []].insert(room.id)
        refreshIdleTimer(room)
        let session = room.snapshot
        var list = DeliveryList()
        if isNew {
            let others = devices(of: room.uids, excluding: connection)
            list.send(.userJoined(sessionId: room.id, user: user), to: others)
            list.send(.userListChanged(sessionId: room.id, participants: session.participants), to: others)
        }
        return SessionOutcome(reply: .success(session), deliveries: list.deliveries)
    }

    /// The session `user` may join under `sessionId`, started if need be.
    private func roomToJoin(_ sessionId: String, as user: User, audioOnly: Bool) throws(CoreError) -> SessionRoom {
        guard SessionIDFormat.isValid(sessionId) else { throw .invalidSessionID }
        if let session = sessions[sessionId] {
            switch session.state(of: user.uid) {
            case .joined?:
                return callRoom(for: session)
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
        if let room = rooms[sessionId] {
            if room.members[user.uid] == nil {
                try checkMeetAttendance(of: user.uid)
            }
            return room
        }
        try checkMeetAttendance(of: user.uid)
        return meetRoom(sessionId, callType: audioOnly ? .audio : .video)
    }

    /// A user may be in `maxMeetSessionsPerUser` meet sessions at once: each is a room, a timer
    /// and a call log entry that lives as long as they stay.
    private func checkMeetAttendance(of uid: String) throws(CoreError) {
        guard meetAttendance.count(of: uid) < configuration.maxMeetSessionsPerUser else {
            throw .tooManySessions(configuration.maxMeetSessionsPerUser)
        }
    }
}
