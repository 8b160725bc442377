import CallGateProtocol

extension GatewayCore {
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
    /// ended). Service thread only.
    public func leaveSession(sessionId: String, from connection: ConnectionID) -> SessionOutcome {
        SessionOutcome.attempt { () throws(CoreError) in try leave(sessionId, from: connection) }
    }

    private func leave(_ sessionId: String, from connection: ConnectionID) throws(CoreError) -> SessionOutcome {
        let (room, member) = try joinedRoom(sessionId, from: connection)
        _ = room.detach(connection)
        unlink(connection, from: room.id)
        var list = DeliveryList()
        if room.members[member.user.uid]?.devices.isEmpty == true {
            departSession(member.user.uid, from: room, reason: .hungUp, actor: connection, into: &list)
        }
        return SessionOutcome(reply: .success(room.snapshot), deliveries: list.deliveries)
    }
}
