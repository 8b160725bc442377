import CallGateProtocol

/// The call log entries changed by the op under way: the live calls and sessions mark
/// themselves when they change what their entry shows, and the Core turns the marks into
/// records for the op's outcome. Service thread only.
final class LogChanges {
    /// Call log id -> the call or meeting whose entry changed.
    private var marked: [Int64: Source] = [:]

    /// What a changed entry is built from.
    enum Source {
        /// A rung call, live or finished by the op that changed it.
        case call(LiveCall)
        /// A standalone session (meeting), live or closed by the op that changed it.
        case meet(LiveSession)
    }

    /// The entry of `call` changed.
    func mark(_ call: LiveCall) {
        marked[call.ordinal] = .call(call)
    }

    /// The entry of the standalone session `session` changed.
    func mark(meet session: LiveSession) {
        guard let id = session.logID else { return }
        marked[id] = .meet(session)
    }

    /// Forgets a mark: a call resumed as the log has it changed nothing.
    func unmark(_ call: LiveCall) {
        marked[call.ordinal] = nil
    }

    /// Forgets a meeting's mark: it is not this node's to write.
    func unmark(meet session: LiveSession) {
        if let id = session.logID {
            marked[id] = nil
        }
    }

    /// The marks so far, oldest entry first, and none left.
    func take() -> [Source] {
        guard !marked.isEmpty else { return [] }
        let sources = marked.sorted { $0.key < $1.key }.map(\.value)
        marked.removeAll(keepingCapacity: true)
        return sources
    }
}

/// What the Core writes to the call log, and how it resumes from it after a restart.
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
    /// running are stopped now. New call ids continue after `lastCallID`. The outcome holds the
    /// log changes (calls closed, recordings stopped, meetings resumed). Service thread only.
    public func restore(openCalls records: [CallLogRecord], lastCallID: Int64) -> Outcome<Void> {
        transition { list in
            callIDs.skip(past: max(lastCallID, records.map(\.id).max() ?? 0))
            reopen(records, into: &list)
            runDueTimers(into: &list)
        }
    }

    /// Cluster mode: takes over the open calls of a node that died (their records as the call
    /// log has them), as `restore` resumes calls after a restart: that node's devices are gone,
    /// so every caller and participant gets their grace period, but those with a device
    /// registered here, who are present. Calls this Core runs already are left alone. The
    /// outcome holds what the takeover changed (calls whose ring timeout passed, closed stays,
    /// stopped recordings) and whose engagement it made. Service thread only.
    public func adopt(openCalls records: [CallLogRecord]) -> Outcome<Void> {
        transition { list in
            reopen(records, into: &list)
            for uid in list.engagements where !directory.connections(of: uid).isEmpty {
                cancelGrace(of: uid)
            }
            runDueTimers(into: &list)
        }
    }

    /// Runs the open calls and meetings of `records` as the log has them (`restore`, `adopt`).
    private func reopen(_ records: [CallLogRecord], into list: inout EffectList) {
        for record in records where record.isOpen {
            switch record.callCategory {
            case .call:
                restoreCall(record, into: &list)
            case .meet:
                restoreMeet(record)
            }
        }
    }

    /// The records of the entries marked since the last take, oldest first.
    func takeLogChanges() -> [CallLogRecord] {
        logChanges.take().compactMap { source in
            switch source {
            case .call(let live):
                return record(of: live)
            case .meet(let session):
                return record(ofMeet: session)
            }
        }
    }

    /// The log entry of a rung call.
    func record(of live: LiveCall) -> CallLogRecord {
        let call = live.call
        let history = sessions[live.id]?.history ?? finishedHistories[live.id]
        let recordings = history?.recordings ?? live.priorRecordings
        let callIsLive = !call.callStatus.isTerminal
        let members = live.memberships.map { ($0, Optional($1)) } + live.busySkipped.map { ($0, nil) }
        var heldByUID: [String: Int64] = [:]
        for participant in history?.participants ?? [] {
            heldByUID[participant.uid] = participant.heldSeconds
        }
        let sessionMembers = sessions[live.id]?.members
        let participants = members.map { uid, state in
            let user = live.profiles[uid] ?? profile(of: uid)
            let stay = live.stays[uid] ?? StayLog()
            let holdStartedAt = sessionMembers?[uid]?.heldSince
            // Someone who took part keeps showing so, also after a later invite they missed.
            let shown = stay.joinedAt != nil ? .joined : logState(state, callIsLive: callIsLive)
            return CallLogParticipantRecord(
                uid: uid, name: user.name, avatar: user.avatar, state: shown,
                joinedAt: stay.joinedAt, leftAt: stay.leftAt, closedSeconds: stay.closedSeconds,
                stayStartedAt: stay.stayStartedAt,
                heldSeconds: Self.held(stay.priorHeldSeconds, plus: heldByUID[uid], holdStartedAt),
                holdStartedAt: holdStartedAt, heldAway: heldAway[uid]?.contains(live.id) == true ? true : nil)
        }
        return CallLogRecord(
            id: live.ordinal, sessionId: call.sessionId, callCategory: .call, callType: call.callType,
            callStatus: call.callStatus, initiator: call.initiator, receiver: call.receiver,
            initiatedAt: call.initiatedAt, startedAt: call.joinedAt, endedAt: call.endedAt,
            ringDeadline: live.ringingCount > 0 && !call.callStatus.isTerminal ? live.ringDeadline : nil,
            ringExpiresAt: call.ringExpiresAt, participants: participants, recordings: recordings.map(\.logRecording),
            metadata: call.metadata, callWaiting: call.callWaiting, steps: live.steps)
    }

    /// The log entry of a meeting; nil for one nobody joined (which cannot outlive its op).
    func record(ofMeet session: LiveSession) -> CallLogRecord? {
        let history = session.history
        guard let id = session.logID, let first = history.participants.first else { return nil }
        let participants = history.participants.map { participant in
            let holdStartedAt = session.members[participant.uid]?.heldSince
            return CallLogParticipantRecord(
                uid: participant.uid, name: participant.name, avatar: participant.avatar, state: .joined,
                joinedAt: participant.joinedAt, leftAt: participant.leftAt, closedSeconds: participant.totalSeconds,
                stayStartedAt: session.members[participant.uid]?.joinedAt,
                heldSeconds: Self.held(nil, plus: participant.heldSeconds, holdStartedAt), holdStartedAt: holdStartedAt)
        }
        return CallLogRecord(
            id: id, sessionId: session.id, callCategory: .meet, callType: session.callType,
            callStatus: history.endedAt == nil ? .ongoing : .ended,
            initiator: User(uid: first.uid, name: first.name, avatar: first.avatar), receiver: nil,
            initiatedAt: history.startedAt, startedAt: history.startedAt, endedAt: history.endedAt,
            participants: participants, recordings: history.recordings.map(\.logRecording), steps: session.steps)
    }

    /// The closed seconds on hold a participant record keeps: `prior` and `closed` together; nil
    /// for a participant who never held the call (no hold closed, none running).
    private static func held(_ prior: Int64?, plus closed: Int64?, _ running: Int64?) -> Int64? {
        guard prior != nil || closed != nil || running != nil else { return nil }
        return (prior ?? 0) + (closed ?? 0)
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

    private func restoreCall(_ record: CallLogRecord, into list: inout EffectList) {
        guard calls[record.sessionId] == nil,
              let call = record.call(defaultRingTimeout: Int64(configuration.defaultRingTimeout))
        else { return }
        let live = LiveCall(call: call, ordinal: record.id, ringing: [], changes: logChanges)
        var stays: [String: StayLog] = [:]
        for participant in record.participants {
            let state = memberState(participant, in: record)
            live.set(participant.uid, state)
            live.remember(User(uid: participant.uid, name: participant.name, avatar: participant.avatar))
            let held = participant.heldDuration(at: nowSeconds)
            if participant.joinedAt != nil || held != nil {
                stays[participant.uid] = StayLog(
                    joinedAt: participant.joinedAt, leftAt: participant.leftAt,
                    closedSeconds: participant.closedSeconds, stayStartedAt: participant.stayStartedAt,
                    priorHeldSeconds: held)
            }
        }
        live.restoreStays(stays)
        live.steps = record.steps
        live.priorRecordings = stopped(record.recordings)
        calls[live.id] = live
        let grace = call.callStatus == .initiated ? configuration.callerGracePeriod : configuration.participantGracePeriod
        let away = Set(record.participants.filter { $0.heldAway == true }.map(\.uid))
        for uid in live.members(in: .joined) {
            // A participant who held the call to take a waiting one: it waits for them to take
            // it back (`resumeCall`) instead of engaging them.
            if away.contains(uid), call.callStatus == .ongoing {
                heldAway[uid, default: []].append(live.id)
            } else {
                engagedCall[uid] = live.id
            }
            list.engagementChanged(uid)
            startGrace(for: uid, in: live.id, lasting: grace)
        }
        for uid in live.members(in: .ringing) {
            addRinging(uid, live)
        }
        if live.ringingCount > 0 {
            startRingTimeout(of: live, at: record.ringDeadline ?? nowMillis)
        }
        // Resumed as the log has it, the call changed nothing, unless a recording or a hold was
        // stopped.
        if live.priorRecordings.map(\.logRecording) == record.recordings,
           !record.participants.contains(where: { $0.holdStartedAt != nil }) {
            logChanges.unmark(live)
        }
    }

    /// Resumes the open meeting `record`, its stays closed now, for its participants to join
    /// again (`vacant` ends it if none does). When another meeting already runs under its id
    /// here, `record` is one that two nodes started at once while Redis could not tell them
    /// who owned the id (or an older one no node ended): it is closed now instead, so that no
    /// entry stays open with no node to end it.
    private func restoreMeet(_ record: CallLogRecord) {
        if let running = sessions[record.sessionId] {
            if running.logID != record.id {
                closeOrphanMeet(record)
            }
            return
        }
        let session = meetSession(of: record)
        sessions[session.id] = session
        timers.schedule(
            .vacant(sessionId: session.id), at: monotonicNow + configuration.participantGracePeriod.wholeMilliseconds)
        // Its stays were closed now: the entry changed.
        logChanges.mark(meet: session)
    }

    /// Writes the open meeting `record` ended now, its stays closed, without resuming it.
    private func closeOrphanMeet(_ record: CallLogRecord) {
        let session = meetSession(of: record)
        session.history.endedAt = nowSeconds
        logChanges.mark(meet: session)
    }

    /// The meeting of `record` as a session nobody is in: every stay that ran is closed now and
    /// every recording that ran stopped.
    private func meetSession(of record: CallLogRecord) -> LiveSession {
        let now = nowSeconds
        let session = LiveSession(
            meet: record.sessionId, callType: record.callType, logID: record.id,
            startedAt: record.startedAt ?? record.initiatedAt, attendance: meetAttendance, changes: logChanges)
        session.history.participants = record.participants.map { participant in
            var total = participant.closedSeconds
            var leftAt = participant.leftAt
            if let start = participant.stayStartedAt {
                total += max(0, now - start)
                leftAt = now
            }
            return ParticipantHistory(
                uid: participant.uid, name: participant.name, avatar: participant.avatar,
                joinedAt: participant.joinedAt ?? record.initiatedAt, leftAt: leftAt, totalSeconds: total,
                heldSeconds: participant.heldDuration(at: now))
        }
        session.history.recordings = stopped(record.recordings)
        session.steps = record.steps
        return session
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
