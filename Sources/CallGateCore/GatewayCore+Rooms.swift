import CallGateProtocol

extension GatewayCore {
    /// The history of session `sessionId`: live (stays in progress counted up to now), or
    /// finished and not yet forgotten (kept as long as finished calls are). Nil otherwise.
    /// Service thread only.
    public func sessionHistory(_ sessionId: String) -> SessionHistory? {
        if let room = rooms[sessionId] {
            return room.history(at: nowSeconds)
        }
        return finishedHistories[sessionId]
    }

    /// The live session `sessionId` names and the member `connection` joined it as. A malformed
    /// id, a live call nobody joined this way, a finished call or session, and an unknown id each
    /// get their own error.
    func joinedRoom(_ sessionId: String, from connection: ConnectionID) throws(CoreError) -> (SessionRoom, SessionMember) {
        _ = try requireUser(connection)
        guard SessionIDFormat.isValid(sessionId) else { throw .invalidSessionID }
        guard let room = rooms[sessionId] else {
            if sessions[sessionId] != nil {
                throw .notJoined
            }
            if let call = finishedCalls[sessionId] {
                throw .finished(call.callStatus)
            }
            if finishedHistories[sessionId] != nil {
                throw .finished(.ended)
            }
            throw .callNotFound
        }
        guard let uid = room.uid(joinedFrom: connection), let member = room.members[uid] else {
            throw .notJoined
        }
        return (room, member)
    }

    /// The session of a live ringing call, started now if nobody joined it yet.
    func callRoom(for session: CallSession) -> SessionRoom {
        if let room = rooms[session.id] {
            return room
        }
        let room = SessionRoom(id: session.id, category: .call, callType: session.call.callType, at: nowSeconds)
        room.history.recordings = session.priorRecordings
        rooms[room.id] = room
        return room
    }

    /// A new standalone session. The history of a finished one with the same id is dropped: a
    /// meeting link may be used again as soon as its last session ended.
    func meetRoom(_ sessionId: String, callType: CallType) -> SessionRoom {
        finishedHistories[sessionId] = nil
        if let timer = historyExpiry.removeValue(forKey: sessionId) {
            timers.cancel(timer)
        }
        let room = SessionRoom(
            id: sessionId, category: .meet, callType: callType, at: nowSeconds, attendance: meetAttendance)
        room.logID = nextOrdinal()
        rooms[sessionId] = room
        return room
    }
}
