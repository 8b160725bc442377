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
