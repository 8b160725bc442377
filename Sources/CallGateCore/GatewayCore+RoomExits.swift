import CallGateProtocol

extension GatewayCore {
    /// Takes `uid` out of `room` (with every device of theirs) and tells the users still in:
    /// `onUserLeft` and `onUserListChanged` to every device of each. Nothing else follows from it
    /// here. Returns the member who left, nil if `uid` was not in.
    @discardableResult
    func removeFromRoom(_ uid: String, _ room: SessionRoom, into list: inout DeliveryList) -> SessionMember? {
        guard let member = room.remove(uid, at: nowSeconds) else { return nil }
        release(member, from: room.id)
        noteLogChange(room)
        let others = devices(of: room.uids)
        list.send(.userLeft(sessionId: room.id, user: member.user), to: others)
        list.send(.userListChanged(sessionId: room.id, participants: room.snapshot.participants), to: others)
        refreshIdleTimer(room)
        return member
    }

    /// `uid` leaves the session (their last joined device left, or their grace period passed),
    /// and what follows: in a ringing call they leave the call too, as with `endCall` (a 1:1
    /// call ends, a group call ends below two participants, the caller of a call still ringing
    /// cancels it), which ends the session when the call ends; a standalone session ends with
    /// its last participant. `actor` is the connection that asked, if any.
    func departSession(
        _ uid: String, from room: SessionRoom, reason: EndReason, actor: ConnectionID?, into list: inout DeliveryList
    ) {
        guard let member = removeFromRoom(uid, room, into: &list) else { return }
        guard let session = sessions[room.id] else {
            if room.uids.isEmpty {
                closeRoom(room.id, alsoTelling: [uid], excluding: actor, into: &list)
            }
            return
        }
        guard session.state(of: uid) == .joined else { return }
        if session.call.callStatus == .initiated {
            _ = cancelRinging(session, excluding: actor, into: &list)
        } else {
            _ = depart(session, user: member.user, reason: reason, excluding: actor, into: &list)
        }
    }

    /// Ends session `sessionId`, if it lives: everyone in it leaves, a running recording stops,
    /// its history is kept for `terminalRetention`, and `onCallEnded` goes to every device of
    /// `alsoTelling` and of everyone still in, except `excluded` (the connection that asked).
    func closeRoom(
        _ sessionId: String, alsoTelling: [String], excluding excluded: ConnectionID?, into list: inout DeliveryList
    ) {
        guard let room = rooms.removeValue(forKey: sessionId) else { return }
        var seen = Set<String>()
        let audience = (alsoTelling + room.uids).filter { seen.insert($0).inserted }
        for member in room.close(at: nowSeconds) {
            release(member, from: sessionId)
        }
        if let timer = room.idleTimer {
            timers.cancel(timer)
            room.idleTimer = nil
        }
        noteLogChange(room)
        finishedHistories[sessionId] = room.history
        historyExpiry[sessionId] = timers.schedule(
            .forgetHistory(sessionId: sessionId),
            at: monotonicNow + configuration.terminalRetention.wholeMilliseconds)
        list.send(.callEnded(sessionId: sessionId), to: devices(of: audience, excluding: excluded))
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
        joinedRooms[connection]?.remove(sessionId)
        if joinedRooms[connection]?.isEmpty == true {
            joinedRooms[connection] = nil
        }
    }
}
