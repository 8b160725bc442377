import CallGateProtocol

extension GatewayCore {
    /// Registers an authenticated device of `user` and returns the calls it should show: those
    /// ringing this user (initiated, or a group call still ringing them, and not declined by
    /// them) and the one they take part in (caller of a ringing call, or participant of an
    /// answered one), oldest first. Stops the call grace periods of this user, since they are back;
    /// it does not rejoin any session (a device must `joinSession` again).
    ///
    /// Connecting a connection that is registered already re-registers it as `user`.
    /// Service thread only.
    public func connect(_ connection: ConnectionID, user: User) -> [Call] {
        unregister(connection)
        directory.add(connection, as: user)
        if let pending = graceTimers.removeValue(forKey: user.uid) {
            for timer in pending.values {
                timers.cancel(timer)
            }
        }
        return activeCalls(of: user.uid)
    }

    /// Unregisters a device. When it was the user's last one, their grace period starts: as the
    /// caller of a ringing call (`callerGracePeriod`, then the call is cancelled) or as a
    /// participant of an answered call (`participantGracePeriod`, then they leave it with reason
    /// `disconnected`). The device also leaves every session it joined; a user with no joined
    /// device left in a session is removed from it after `participantGracePeriod` unless a
    /// device of theirs joins it again (connecting alone does not). Returns the deliveries of
    /// timers already due, which includes the grace periods when they are zero. Unknown
    /// connections are ignored. Service thread only.
    public func disconnect(_ connection: ConnectionID) -> [Delivery] {
        unregister(connection)
        return fireDueTimers()
    }

    private func unregister(_ connection: ConnectionID) {
        guard let user = directory.remove(connection) else { return }
        detachFromRooms(connection)
        guard directory.connections(of: user.uid).isEmpty,
              let sessionId = engagedCall[user.uid],
              let session = sessions[sessionId]
        else { return }
        let period = session.call.callStatus == .initiated
            ? configuration.callerGracePeriod
            : configuration.participantGracePeriod
        startGrace(for: user.uid, in: sessionId, lasting: period)
    }
}
