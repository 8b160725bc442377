import CallGateProtocol

/// Everything that happened in one call session, with times, so the call log can persist it
/// without asking anyone again. Times are Unix seconds from the gateway's clock.
public struct SessionHistory: Hashable, Sendable {
    /// The session id.
    public var sessionId: String
    /// `call` for the session of a ringing call, `meet` for a standalone session.
    public var callCategory: CallCategory
    /// The call type at the end (or now): `video` once anyone switched to video.
    public var callType: CallType
    /// When the first participant joined.
    public var startedAt: Int64
    /// When the session ended; nil while it lives.
    public var endedAt: Int64?
    /// Every user who was ever in the session, in the order they first joined.
    public var participants: [ParticipantHistory]
    /// Every recording, in the order they started.
    public var recordings: [RecordingHistory]
    /// Every `setMuted`, in order.
    public var muteChanges: [MuteChange]
    /// Every switch to video, in order (at most one, as a video call cannot switch again).
    public var videoSwitches: [VideoSwitch]

    /// Makes a history.
    public init(
        sessionId: String,
        callCategory: CallCategory,
        callType: CallType,
        startedAt: Int64,
        endedAt: Int64? = nil,
        participants: [ParticipantHistory] = [],
        recordings: [RecordingHistory] = [],
        muteChanges: [MuteChange] = [],
        videoSwitches: [VideoSwitch] = []
    ) {
        self.sessionId = sessionId
        self.callCategory = callCategory
        self.callType = callType
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.participants = participants
        self.recordings = recordings
        self.muteChanges = muteChanges
        self.videoSwitches = videoSwitches
    }
}

extension SessionHistory {
    /// A user joined: their first join adds them, a later one starts a new stay.
    mutating func recordJoin(_ user: User, at now: Int64) {
        if let index = participants.firstIndex(where: { $0.uid == user.uid }) {
            participants[index].leftAt = nil
        } else {
            participants.append(ParticipantHistory(
                uid: user.uid, name: user.name, avatar: user.avatar, joinedAt: now, totalSeconds: 0))
        }
    }

    /// A user left: their stay that started at `stayStartedAt` is over.
    mutating func recordLeave(_ uid: String, stayStartedAt start: Int64, at now: Int64) {
        guard let index = participants.firstIndex(where: { $0.uid == uid }) else { return }
        participants[index].leftAt = now
        participants[index].totalSeconds += now - start
    }

    /// Counts a stay still in progress up to `now`, for a history read while the session lives.
    mutating func addRunningStay(_ uid: String, stayStartedAt start: Int64, at now: Int64) {
        guard let index = participants.firstIndex(where: { $0.uid == uid }) else { return }
        participants[index].totalSeconds += now - start
    }

    /// A hold of `uid`'s that started at `since` is over at `now` (or counted up to it).
    mutating func recordHold(_ uid: String, since: Int64, at now: Int64) {
        guard let index = participants.firstIndex(where: { $0.uid == uid }) else { return }
        participants[index].heldSeconds = (participants[index].heldSeconds ?? 0) + max(0, now - since)
    }

    /// A recording started; its id is `<sessionId>-r<n>`.
    mutating func startRecording(at now: Int64) {
        recordings.append(RecordingHistory(rid: "\(sessionId)-r\(recordings.count + 1)", startedAt: now))
    }

    /// The running recording stopped.
    mutating func stopRecording(at now: Int64) {
        guard let index = recordings.indices.last, recordings[index].endedAt == nil else { return }
        recordings[index].endedAt = now
        recordings[index].duration = now - recordings[index].startedAt
    }
}

/// One user's part in a session, over every stay (a user may leave a session and join again).
public struct ParticipantHistory: Hashable, Sendable {
    /// The user's id.
    public var uid: String
    /// The display name they first joined with.
    public var name: String
    /// The picture URL they first joined with.
    public var avatar: String?
    /// When they first joined, Unix seconds.
    public var joinedAt: Int64
    /// When they last left, Unix seconds; nil while they are in the session.
    public var leftAt: Int64?
    /// Seconds spent in the session over every stay; a stay in progress counts up to now.
    public var totalSeconds: Int64
    /// Seconds they had the call on hold, over every hold that is over (in a history read while
    /// the session lives, a hold in progress counts up to now); nil when they never held it.
    public var heldSeconds: Int64?

    /// Makes a participant history.
    public init(
        uid: String, name: String, avatar: String? = nil, joinedAt: Int64, leftAt: Int64? = nil, totalSeconds: Int64,
        heldSeconds: Int64? = nil
    ) {
        self.heldSeconds = heldSeconds
        self.uid = uid
        self.name = name
        self.avatar = avatar
        self.joinedAt = joinedAt
        self.leftAt = leftAt
        self.totalSeconds = totalSeconds
    }
}

/// One recording of a session, from `startRecording` to `stopRecording` (or the session's end).
public struct RecordingHistory: Hashable, Sendable {
    /// The recording's id, unique per recording: `<sessionId>-r<n>`, n counting from 1.
    public var rid: String
    /// When it started, Unix seconds.
    public var startedAt: Int64
    /// When it stopped, Unix seconds; nil while it runs.
    public var endedAt: Int64?
    /// `endedAt - startedAt` in seconds; nil while it runs.
    public var duration: Int64?

    /// Makes a recording history.
    public init(rid: String, startedAt: Int64, endedAt: Int64? = nil, duration: Int64? = nil) {
        self.rid = rid
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.duration = duration
    }
}

extension RecordingHistory {
    /// The call log's view of this recording (its URL is attached later, by the store).
    var logRecording: CallLogRecording {
        CallLogRecording(rid: rid, startedAt: startedAt, endedAt: endedAt, duration: duration)
    }
}

/// One `setMuted` in a session: who, when, and their mute state after it.
public struct MuteChange: Hashable, Sendable {
    /// When, Unix seconds.
    public var at: Int64
    /// Whose state it was.
    public var uid: String
    /// Whether their audio was muted after the change.
    public var audioMuted: Bool
    /// Whether their video was muted after the change.
    public var videoMuted: Bool

    /// Makes a mute change.
    public init(at: Int64, uid: String, audioMuted: Bool, videoMuted: Bool) {
        self.at = at
        self.uid = uid
        self.audioMuted = audioMuted
        self.videoMuted = videoMuted
    }
}

/// One `switchToVideo` in a session: who turned the audio call into a video call, and when.
public struct VideoSwitch: Hashable, Sendable {
    /// When, Unix seconds.
    public var at: Int64
    /// Who asked.
    public var uid: String

    /// Makes a video switch.
    public init(at: Int64, uid: String) {
        self.at = at
        self.uid = uid
    }
}
