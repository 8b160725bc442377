/// A call session as the wire shows it: who is in it right now and what state it is in.
///
/// A ringing call becomes a session once its participants join it; a standalone session
/// (`callCategory` `meet`) starts when someone joins an id no call has. Timestamps are Unix seconds.
public struct Session: Codable, Hashable, Sendable {
    /// The session id: the ringing call's id, or the standalone session's chosen id.
    public var sessionId: String
    /// `call` for the session of a ringing call, `meet` for a standalone session.
    public var callCategory: CallCategory
    /// Audio or video; `switchToVideo` turns audio into video.
    public var callType: CallType
    /// The users in the session, one entry per uid, ordered by `joinedAt`.
    public var participants: [Participant]
    /// Whether the session is being recorded.
    public var recording: Bool
    /// When the first participant joined.
    public var startedAt: Int64

    /// Makes a session value.
    public init(
        sessionId: String,
        callCategory: CallCategory,
        callType: CallType,
        participants: [Participant],
        recording: Bool,
        startedAt: Int64
    ) {
        self.sessionId = sessionId
        self.callCategory = callCategory
        self.callType = callType
        self.participants = participants
        self.recording = recording
        self.startedAt = startedAt
    }
}

/// One user in a session, however many of their devices joined it.
public struct Participant: Codable, Hashable, Sendable {
    /// The user's id.
    public var uid: String
    /// The display name.
    public var name: String
    /// An optional picture URL.
    public var avatar: String?
    /// When the user's first device joined (this stay), Unix seconds.
    public var joinedAt: Int64
    /// Whether the user's audio is muted.
    public var audioMuted: Bool
    /// Whether the user's video is muted.
    public var videoMuted: Bool
    /// `true` while the user has the call on hold (`holdCall`); absent otherwise.
    public var onHold: Bool?

    /// Makes a participant value.
    public init(
        uid: String, name: String, avatar: String? = nil, joinedAt: Int64, audioMuted: Bool, videoMuted: Bool,
        onHold: Bool? = nil
    ) {
        self.uid = uid
        self.name = name
        self.avatar = avatar
        self.joinedAt = joinedAt
        self.audioMuted = audioMuted
        self.videoMuted = videoMuted
        self.onHold = onHold
    }
}
