import CallGateProtocol

extension GatewayCore {
    /// The call log entries that changed since the last call, oldest call first: every call or
    /// meeting an op or a timer created or changed, as it stands now. The server writes them to
    /// the store, and sends the replies and pushes of those ops only once they are written.
    /// Service thread only.
    public func takeCallLogChanges() -> [CallLogRecord] {
        guard !logChanges.isEmpty else { return [] }
        let changed = logChanges.sorted { $0.key < $1.key }
        logChanges.removeAll(keepingCapacity: true)
        return changed.compactMap { _, source in
            switch source {
            case .call(let session):
                return record(of: session)
            case .meet(let room):
                return record(ofMeet: room)
            }
        }
    }

    /// Marks the log entry of a call as changed.
    func noteLogChange(_ session: CallSession) {
        logChanges[session.ordinal] = .call(session)
    }

    /// Marks the log entry a session belongs to as changed: its own for a meeting, its call's
    /// for a ringing call's session (a call that just finished was marked by `finish`).
    func noteLogChange(_ room: SessionRoom) {
        if let id = room.logID {
            logChanges[id] = .meet(room)
        } else if let session = sessions[room.id] {
            noteLogChange(session)
        }
    }

    /// The log entry of a rung call.
    func record(of session: CallSession) -> CallLogRecord {
        let call = session.call
        let history = rooms[session.id]?.history ?? finishedHistories[session.id]
        let recordings = history?.recordings ?? session.priorRecordings
        let callIsLive = !call.callStatus.isTerminal
        let members = session.memberships.map { ($0, Optional($1)) } + session.busySkipped.map { ($0, nil) }
        let participants = members.map { uid, state in
            let user = session.profiles[uid] ?? profile(of: uid)
            let stay = session.stays[uid] ?? StayLog()
            return CallLogParticipantRecord(
                uid: uid, name: user.name, avatar: user.avatar, state: logState(state, callIsLive: callIsLive),
                joinedAt: stay.joinedAt, leftAt: stay.leftAt, closedSeconds: stay.closedSeconds,
                stayStartedAt: stay.stayStartedAt)
        }
        return CallLogRecord(
            id: session.ordinal, sessionId: call.sessionId, callCategory: .call, callType: call.callType,
            callStatus: call.callStatus, initiator: call.initiator, receiver: call.receiver,
            initiatedAt: call.initiatedAt, startedAt: call.joinedAt, endedAt: call.endedAt,
            ringDeadline: session.ringingCount > 0 && !call.callStatus.isTerminal ? session.ringDeadline : nil,
            participants: participants, recordings: recordings.map(\.logRecording), metadata: call.metadata)
    }

    /// The log entry of a meeting; nil for one nobody joined (which cannot outlive its op).
    func record(ofMeet room: SessionRoom) -> CallLogRecord? {
        let history = room.history
        guard let id = room.logID, let first = history.participants.first else { return nil }
        let participants = history.participants.map { participant in
            CallLogParticipantRecord(
                uid: participant.uid, name: participant.name, avatar: participant.avatar, state: .joined,
                joinedAt: participant.joinedAt, leftAt: participant.leftAt, closedSeconds: participant.totalSeconds,
                stayStartedAt: room.members[participant.uid]?.joinedAt)
        }
        return CallLogRecord(
            id: id, sessionId: room.id, callCategory: .meet, callType: room.callType,
            callStatus: history.endedAt == nil ? .ongoing : .ended,
            initiator: User(uid: first.uid, name: first.name, avatar: first.avatar), receiver: nil,
            initiatedAt: history.startedAt, startedAt: history.startedAt, endedAt: history.endedAt,
            participants: participants, recordings: history.recordings.map(\.logRecording))
    }

    /// How the log shows a member state: whoever still rings when the call is over missed it.
    private func logState(_ state: MemberState?, callIsLive: Bool) -> CallLogParticipantState {
        switch state {
        case .joined?, .left?: .joined
        case .declined?: .declined
        case .ringing?: callIsLive ? .ringing : .missed
        case .missed?, nil: .missed
        }
    }
}
