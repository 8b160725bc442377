import CallGateProtocol

extension GatewayCore {
    /// Resumes the calls a previous run left open, from the call log. Call once, before the
    /// first connection.
    ///
    /// Nobody is connected yet, so every participant is treated as just disconnected: a ringing
    /// call keeps ringing until its original ring timeout (closed `unanswered` here if that has
    /// passed) and its caller gets `callerGracePeriod` to come back; an answered call stays
    /// open and each participant gets `participantGracePeriod` to reconnect, after which the
    /// disconnect rules apply. A meeting stays open for `participantGracePeriod` for someone to
    /// join it again; its stays are closed now (the devices are gone). Recordings that were
    /// running are stopped now. New call ids continue after `lastCallID`. The resulting log
    /// changes are in the next `takeCallLogChanges`. Service thread only.
    public func restore(openCalls records: [CallLogRecord], lastCallID: Int64) {
        lastOrdinal = max(lastOrdinal, lastCallID, records.map(\.id).max() ?? 0)
        for record in records where record.isOpen {
            switch record.callCategory {
            case .call:
                restoreCall(record)
            case .meet:
                restoreMeet(record)
            }
        }
        _ = fireDueTimers()
    }

    private func restoreCall(_ record: CallLogRecord) {
        guard let receiver = record.receiver, sessions[record.sessionId] == nil else { return }
        let call = Call(
            sessionId: record.sessionId, callType: record.callType,
            receiverType: record.groupID == nil ? .user : .group, callStatus: record.callStatus,
            initiator: record.initiator, receiver: receiver, initiatedAt: record.initiatedAt,
            joinedAt: record.startedAt, metadata: record.metadata)
        let session = CallSession(call: call, ordinal: record.id, ringing: [])
        var stays: [String: StayLog] = [:]
        for participant in record.participants {
            let state = memberState(participant, in: record)
            session.set(participant.uid, state)
            session.remember(User(uid: participant.uid, name: participant.name, avatar: participant.avatar))
            if participant.joinedAt != nil {
                stays[participant.uid] = StayLog(
                    joinedAt: participant.joinedAt, leftAt: participant.leftAt,
                    closedSeconds: participant.closedSeconds, stayStartedAt: participant.stayStartedAt)
            }
        }
        session.restoreStays(stays)
        session.priorRecordings = stopped(record.recordings)
        sessions[session.id] = session
        let grace = call.callStatus == .initiated ? configuration.callerGracePeriod : configuration.participantGracePeriod
        for uid in session.members(in: .joined) {
            engagedCall[uid] = session.id
            startGrace(for: uid, in: session.id, lasting: grace)
        }
        for uid in session.members(in: .ringing) {
            ringingCalls[uid, default: []].append(session.id)
        }
        if session.ringingCount > 0 {
            let deadline = record.ringDeadline ?? nowMillis
            session.ringDeadline = deadline
            session.ringTimer = timers.schedule(
                .ringTimeout(sessionId: session.id), at: monotonicNow + max(0, deadline - nowMillis))
        }
        if session.priorRecordings.map(\.logRecording) != record.recordings {
            noteLogChange(session)
        }
    }

    private func restoreMeet(_ record: CallLogRecord) {
        guard rooms[record.sessionId] == nil else { return }
        let now = nowSeconds
        let room = SessionRoom(
            id: record.sessionId, category: .meet, callType: record.callType, at: record.startedAt ?? record.initiatedAt,
            attendance: meetAttendance)
        room.logID = record.id
        room.history.participants = record.participants.map { participant in
            var total = participant.closedSeconds
            var leftAt = participant.leftAt
            if let start = participant.stayStartedAt {
                total += max(0, now - start)
                leftAt = now
            }
            return ParticipantHistory(
                uid: participant.uid, name: participant.name, avatar: participant.avatar,
                joinedAt: participant.joinedAt ?? record.initiatedAt, leftAt: leftAt, totalSeconds: total)
        }
        room.history.recordings = stopped(record.recordings)
        rooms[room.id] = room
        _ = timers.schedule(
            .vacant(sessionId: room.id), at: monotonicNow + configuration.participantGracePeriod.wholeMilliseconds)
        noteLogChange(room)
    }

    /// Where a logged participant stands in the resumed call: a joined user whose stay is over
    /// has left it (the caller of a call still ringing has no stay yet and is in).
    private func memberState(_ participant: CallLogParticipantRecord, in record: CallLogRecord) -> MemberState {
        switch participant.state {
        case .joined:
            let isWaitingCaller = participant.uid == record.initiator.uid && record.callStatus == .initiated
            return participant.stayStartedAt != nil || isWaitingCaller ? .joined : .left
        case .declined:
            return .declined
        case .missed:
            return .missed
        case .ringing:
            return .ringing
        }
    }

    /// `recordings` with any that still ran stopped now.
    private func stopped(_ recordings: [CallLogRecording]) -> [RecordingHistory] {
        let now = nowSeconds
        return recordings.map { recording in
            let end = recording.endedAt ?? max(recording.startedAt, now)
            return RecordingHistory(
                rid: recording.rid, startedAt: recording.startedAt, endedAt: end,
                duration: recording.duration ?? end - recording.startedAt)
        }
    }
}
