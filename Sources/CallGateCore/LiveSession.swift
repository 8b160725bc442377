import CallGateProtocol

/// A live call session: who joined it from which devices, their mute state, the recording flag,
/// the idle timer, and the history kept for the call log.
///
/// A ringing call's session has the call's id and is logged with its call; a standalone
/// (`meet`) session has the id its first joiner chose and a log entry of its own. Every change
/// that shows in the call log marks the entry in `changes`. The Core keeps the timers and the
/// indexes in step. Service thread only.
final class LiveSession {
    /// The session id.
    let id: String
    /// The ringing call this session belongs to; nil for a standalone session.
    let call: LiveCall?
    /// Audio or video; for a ringing call's session, kept equal to the call's type.
    var callType: CallType
    /// Whether a recording runs.
    var recording = false
    /// The idle timeout running while exactly one user is in the session.
    var idleTimer: TimerID?
    /// Since when (monotonic milliseconds) the only user has been alone; nil while zero or
    /// several users are in.
    var aloneSince: Int64?
    /// What happened so far; stays of users still in are closed when they leave.
    var history: SessionHistory
    /// The call log id of a standalone session; nil for a ringing call's session.
    let logID: Int64?
    /// A standalone session's timeline (a ringing call's session notes in its call's).
    var steps = CallSteps()
    /// The users the host removed: they may not join again while the session lives.
    var removed: Set<String> = []
    /// The users in the session by uid.
    private(set) var members: [String: SessionMember] = [:]
    /// The uids in the session, by when they joined.
    private(set) var uids: [String] = []
    /// Joined device -> its user.
    private var joinedDevices: [ConnectionID: String] = [:]
    /// Told of every member added and removed, for a meet session (nil for a call's session).
    private let attendance: MeetAttendance?
    /// Where the session reports that its log entry (or its call's) changed.
    private unowned let changes: LogChanges

    /// The session of `call`, nobody in it yet, started now.
    init(of call: LiveCall, at now: Int64, changes: LogChanges) {
        id = call.id
        self.call = call
        callType = call.call.callType
        logID = nil
        attendance = nil
        self.changes = changes
        history = SessionHistory(sessionId: id, callCategory: .call, callType: callType, startedAt: now)
        history.recordings = call.priorRecordings
    }

    /// A standalone session with log entry `logID`, nobody in it yet, started at `startedAt`;
    /// it reports its members to `attendance`.
    init(
        meet id: String, callType: CallType, logID: Int64, startedAt: Int64, attendance: MeetAttendance,
        changes: LogChanges
    ) {
        self.id = id
        call = nil
        self.callType = callType
        self.logID = logID
        self.attendance = attendance
        self.changes = changes
        history = SessionHistory(sessionId: id, callCategory: .meet, callType: callType, startedAt: startedAt)
    }

    /// Who may mute and remove the others: the call's initiator, or for a meeting the user who
    /// started it (its first joiner); nil for a meeting nobody joined yet.
    var host: String? {
        call?.call.initiator.uid ?? history.participants.first?.uid
    }

    /// The session as the wire shows it.
    var snapshot: Session {
        Session(
            sessionId: id, callCategory: history.callCategory, callType: callType,
            participants: uids.compactMap { members[$0]?.participant }, recording: recording,
            startedAt: history.startedAt)
    }

    /// The user whose device `connection` joined this session, nil if it did not.
    func uid(joinedFrom connection: ConnectionID) -> String? {
        joinedDevices[connection]
    }

    /// Adds a device of `user`. Returns true when the user was not in the session yet (a new
    /// participant); a further device of a user already in only joins them up again.
    func join(_ user: User, from connection: ConnectionID, idleTimeout: Int, at now: Int64) -> Bool {
        joinedDevices[connection] = user.uid
        if var member = members[user.uid] {
            member.devices.append(connection)
            member.idleTimeout = idleTimeout
            members[user.uid] = member
            return false
        }
        members[user.uid] = SessionMember(user: user, joinedAt: now, devices: [connection], idleTimeout: idleTimeout)
        uids.append(user.uid)
        attendance?.joined(user.uid)
        history.recordJoin(user, at: now)
        markChanged()
        return true
    }

    /// Adds `connection` as a device of `uid`, a member already, changing nothing else: a
    /// device resuming its previous connection's sessions (see `GatewayCore.resumeSessions`).
    func attach(_ connection: ConnectionID, as uid: String) {
        guard members[uid] != nil else { return }
        joinedDevices[connection] = uid
        members[uid]?.devices.append(connection)
    }

    /// Removes a joined device; returns its user, nil when the device had not joined.
    func detach(_ connection: ConnectionID) -> String? {
        guard let uid = joinedDevices.removeValue(forKey: connection) else { return nil }
        members[uid]?.devices.removeAll { $0 == connection }
        return uid
    }

    /// Removes a user and every device of theirs, closing their stay in the history.
    func remove(_ uid: String, at now: Int64) -> SessionMember? {
        guard let member = members.removeValue(forKey: uid) else { return nil }
        uids.removeAll { $0 == uid }
        attendance?.left(uid)
        for device in member.devices {
            joinedDevices[device] = nil
        }
        if let since = member.heldSince {
            history.recordHold(uid, since: since, at: now)
        }
        history.recordLeave(uid, stayStartedAt: member.joinedAt, at: now)
        markChanged()
        return member
    }

    /// Puts the call on hold for `member` (on: true) or takes it off; the time on hold goes into
    /// the history when it ends. Returns the member as they are now; callers check the change is
    /// one.
    func setHeld(_ member: SessionMember, _ on: Bool, at now: Int64) -> SessionMember {
        var member = member
        if on {
            member.heldSince = now
        } else if let since = member.heldSince {
            history.recordHold(member.user.uid, since: since, at: now)
            member.heldSince = nil
        }
        update(member)
        markChanged()
        return member
    }

    /// Stores a member's new state (mute flags, grace timer).
    func update(_ member: SessionMember) {
        members[member.user.uid] = member
    }

    /// Ends the session now: everyone leaves, a running recording stops. Returns the members
    /// who were in (so the core can cancel their timers) and leaves the final history behind.
    func close(at now: Int64) -> [SessionMember] {
        let leaving = uids.compactMap { remove($0, at: now) }
        if recording {
            recording = false
            history.stopRecording(at: now)
        }
        history.endedAt = now
        markChanged()
        return leaving
    }

    /// The history as of `now`: stays still in progress count up to now.
    func history(at now: Int64) -> SessionHistory {
        var copy = history
        for member in members.values {
            copy.addRunningStay(member.user.uid, stayStartedAt: member.joinedAt, at: now)
            if let since = member.heldSince {
                copy.recordHold(member.user.uid, since: since, at: now)
            }
        }
        return copy
    }

    /// Sets a member's mute flags (nil keeps a flag) and records the change, keeping the newest
    /// `kept` changes. Returns the member as they are now. The call log does not show mutes.
    func setMuted(_ member: SessionMember, audio: Bool?, video: Bool?, at now: Int64, keeping kept: Int) -> SessionMember {
        var member = member
        member.audioMuted = audio ?? member.audioMuted
        member.videoMuted = video ?? member.videoMuted
        update(member)
        if history.muteChanges.count >= kept {
            history.muteChanges.removeFirst(history.muteChanges.count - kept + 1)
        }
        history.muteChanges.append(MuteChange(
            at: now, uid: member.user.uid, audioMuted: member.audioMuted, videoMuted: member.videoMuted))
        return member
    }

    /// Starts or stops the recording and records it; callers check it is not already so.
    func setRecording(_ on: Bool, at now: Int64) {
        recording = on
        if on {
            history.startRecording(at: now)
        } else {
            history.stopRecording(at: now)
        }
        markChanged()
    }

    /// Makes the session a video call, asked by `uid`, and records it; the ringing call it
    /// belongs to becomes a video call too.
    func switchToVideo(by uid: String, at now: Int64) {
        callType = .video
        call?.call.callType = .video
        history.callType = .video
        history.videoSwitches.append(VideoSwitch(at: now, uid: uid))
        markChanged()
    }

    /// Marks the log entry this session shows in: its own, or its call's.
    private func markChanged() {
        if let call {
            changes.mark(call)
        } else {
            changes.mark(meet: self)
        }
    }
}

/// One user in a live session: who they are, which of their devices joined, and their state.
/// Service thread only.
struct SessionMember {
    /// The user as the device that joined first described them.
    let user: User
    /// When their first device joined, for this stay, Unix seconds.
    let joinedAt: Int64
    /// Whether their audio is muted.
    var audioMuted = false
    /// Whether their video is muted.
    var videoMuted = false
    /// Their devices that joined and have neither left nor disconnected, oldest first. Empty while
    /// their grace period runs.
    var devices: [ConnectionID]
    /// How long they may stay alone in the session, in seconds; their latest join sets it.
    var idleTimeout: Int
    /// The grace period running while none of their devices is joined.
    var graceTimer: TimerID?
    /// Since when (Unix seconds) they have the call on hold; nil when they do not.
    var heldSince: Int64?

    /// The member as the wire lists them.
    var participant: Participant {
        Participant(
            uid: user.uid, name: user.name, avatar: user.avatar, joinedAt: joinedAt,
            audioMuted: audioMuted, videoMuted: videoMuted, onHold: heldSince == nil ? nil : true)
    }
}

/// How many standalone (`meet`) sessions each user is in right now, for the cap on them
/// (`CoreConfiguration.maxMeetSessionsPerUser`). The meet sessions report every member they add
/// and remove, so the count is exact without walking the sessions. Service thread only.
final class MeetAttendance {
    private var counts: [String: Int] = [:]

    /// The number of meet sessions `uid` is a member of.
    func count(of uid: String) -> Int {
        counts[uid] ?? 0
    }

    /// `uid` joined one more meet session.
    func joined(_ uid: String) {
        counts[uid, default: 0] += 1
    }

    /// `uid` left one meet session.
    func left(_ uid: String) {
        let left = (counts[uid] ?? 1) - 1
        counts[uid] = left > 0 ? left : nil
    }
}
