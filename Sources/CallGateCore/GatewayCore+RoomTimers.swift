import CallGateProtocol

extension GatewayCore {
    /// Keeps the idle timer of `room` in step with who is in it: while exactly one user is in,
    /// it runs for their idle timeout from the moment they became alone; otherwise it is off.
    func refreshIdleTimer(_ room: SessionRoom) {
        if let timer = room.idleTimer {
            timers.cancel(timer)
            room.idleTimer = nil
        }
        guard room.uids.count == 1, let member = room.members[room.uids[0]] else {
            room.aloneSince = nil
            return
        }
        let since = room.aloneSince ?? monotonicNow
        room.aloneSince = since
        room.idleTimer = timers.schedule(.idle(sessionId: room.id), at: since + Int64(member.idleTimeout) * 1000)
    }

    /// A device went away: it is no longer joined to any session, and a user left with no joined
    /// device in a session gets `participantGracePeriod` to join again from some device.
    func detachFromRooms(_ connection: ConnectionID) {
        guard let ids = joinedRooms.removeValue(forKey: connection) else { return }
        for id in ids.sorted() {
            guard let room = rooms[id],
                  let uid = room.detach(connection),
                  var member = room.members[uid],
                  member.devices.isEmpty
            else { continue }
            member.graceTimer = timers.schedule(
                .sessionGrace(uid: uid, sessionId: id),
                at: monotonicNow + configuration.participantGracePeriod.wholeMilliseconds)
            room.update(member)
        }
    }

    /// The only user of a session was alone for their idle timeout: their devices get
    /// `onSessionTimeout`, they are removed, and the session ends (with the ringing call it
    /// belongs to: `cancelled` if still ringing, else `ended`).
    func idleTimedOut(_ sessionId: String, into list: inout DeliveryList) {
        guard let room = rooms[sessionId], room.uids.count == 1 else { return }
        room.idleTimer = nil
        let uid = room.uids[0]
        list.send(.sessionTimeout(sessionId: sessionId), to: devices(of: [uid]))
        removeFromRoom(uid, room, into: &list)
        guard let session = sessions[sessionId] else {
            closeRoom(sessionId, alsoTelling: [uid], excluding: nil, into: &list)
            return
        }
        if session.call.callStatus == .initiated {
            _ = cancelRinging(session, excluding: nil, into: &list)
            return
        }
        let joined = session.members(in: .joined)
        let ringing = session.members(in: .ringing)
        let call = finish(session, as: .ended)
        list.send(.incomingCallCanceled(call: call, reason: .ended), to: devices(of: ringing))
        closeRoom(sessionId, alsoTelling: [uid] + joined, excluding: nil, into: &list)
    }

    /// A session member's grace period passed with none of their devices joined again: they
    /// leave the session as if they had sent `leaveSession`, with reason `disconnected`.
    func sessionGraceEnded(for uid: String, in sessionId: String, into list: inout DeliveryList) {
        guard let room = rooms[sessionId], var member = room.members[uid], member.devices.isEmpty else { return }
        member.graceTimer = nil
        room.update(member)
        departSession(uid, from: room, reason: .disconnected, actor: nil, into: &list)
    }
}
