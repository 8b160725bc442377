import CallGateProtocol

/// A live call session: who joined it from which devices, their mute state, the recording flag,
/// the idle timer, and the history kept for the call log. A ringing call's session has the
/// call's id; a standalone (`meet`) session has the id its first joiner chose. The core keeps the
/// timers and the indexes in step. Service thread only.
final class SessionRoom {
    /// The session id.
    let id: String
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
    /// The call log id of a standalone session; nil for a ringing call's session, which is
    /// logged with its call.
    var logID: Int64?
    /// The users in the session by uid.
    private(set) var members: [String: SessionMember] = [:]
    /// The uids in the session, by when they joined.
    private(set) var uids: [String] = []
    /// Joined device -> its user.
    private var joinedDevices: [ConnectionID: String] = [:]
    /// Told of every member added and removed, for a meet session (nil for a call's session).
    private let attendance: MeetAttendance?

    /// A session nobody joined yet, started now; a meet session reports its members to `attendance`.
    init(id: String, category: CallCategory, callType: CallType, at now: Int64, attendance: MeetAttendance? = nil) {
        self.id = id
        self.callType = callType
        self.attendance = attendance
        history = SessionHistory(sessionId: id, callCategory: category, callType: callType, startedAt: now)
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
        return true
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
        history.recordLeave(uid, stayStartedAt: member.joinedAt, at: now)
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
        return leaving
    }

    /// The history as of `now`: stays still in progress count up to now.
    func history(at now: Int64) -> SessionHistory {
        var copy = history
        for member in members.values {
            copy.addRunningStay(member.user.uid, stayStartedAt: member.joinedAt, at: now)
        }
        return copy
    }
}
