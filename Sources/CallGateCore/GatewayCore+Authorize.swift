import CallGateProtocol

extension GatewayCore {
    /// Decides whether `connection`'s user may get a call token for session `sessionId`; the
    /// server asks before it signs one, and signs it for the user returned.
    ///
    /// Not logged in: `ERR_USER_NOT_LOGGED_IN`. A malformed id: `ERR_INVALID_SESSION_ID`. A live
    /// ringing call: only its caller and the users it rang (callees, group members) get a token,
    /// others `ERR_NOT_PARTICIPANT`; whether they may join is decided at `joinSession`. A finished
    /// call still remembered: its terminal error (`ERR_CALL_CANCELLED`, `ERR_CALL_REJECTED`,
    /// `ERR_CALL_ENDED`). A live standalone session, or any other id: allowed, as joining it
    /// starts a standalone session. Creates no state, so token requests cannot grow memory.
    /// Service thread only.
    public func authorizeCallToken(sessionId: String, from connection: ConnectionID) -> Result<User, CoreError> {
        do {
            return .success(try authorize(sessionId, from: connection))
        } catch {
            return .failure(error)
        }
    }

    private func authorize(_ sessionId: String, from connection: ConnectionID) throws(CoreError) -> User {
        let user = try requireUser(connection)
        guard SessionIDFormat.isValid(sessionId) else { throw .invalidSessionID }
        if let session = sessions[sessionId] {
            guard session.state(of: user.uid) != nil else { throw .notParticipant("you are not in this call") }
        } else if let call = finishedCalls[sessionId] {
            throw .finished(call.callStatus)
        }
        return user
    }
}
