// The `data` structs of the session pushes (`onUserJoined` ... `onCallEnded`, `onRemovedFromCall`,
// `onSessionEvent`), as `Push.init(event:frame:)` decodes them and clients read them.

/// The `data` of `onUserJoined`: a user joined a session.
public struct UserJoinedData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// Who joined.
    public var user: User

    /// Makes the push data.
    public init(sessionId: String, user: User) {
        self.sessionId = sessionId
        self.user = user
    }
}

/// The `data` of `onUserLeft`: a user left a session (or was removed from it).
public struct UserLeftData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// Who left.
    public var user: User

    /// Makes the push data.
    public init(sessionId: String, user: User) {
        self.sessionId = sessionId
        self.user = user
    }
}

/// The `data` of `onUserListChanged`: the participant list after a join or a leave.
public struct UserListChangedData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// Everyone in the session now, ordered by `joinedAt`.
    public var participants: [Participant]

    /// Makes the push data.
    public init(sessionId: String, participants: [Participant]) {
        self.sessionId = sessionId
        self.participants = participants
    }
}

/// The `data` of `onUserMuted`: a participant's mute state after `setMuted`.
public struct UserMutedData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// Whose state changed.
    public var user: User
    /// Whether their audio is muted now.
    public var audioMuted: Bool
    /// Whether their video is muted now.
    public var videoMuted: Bool
    /// The host who muted them (`muteParticipant`); absent when they changed it themselves.
    public var mutedBy: User?

    /// Makes the push data.
    public init(sessionId: String, user: User, audioMuted: Bool, videoMuted: Bool, mutedBy: User? = nil) {
        self.sessionId = sessionId
        self.user = user
        self.audioMuted = audioMuted
        self.videoMuted = videoMuted
        self.mutedBy = mutedBy
    }
}

/// The `data` of `onRemovedFromCall`: this user is out of the session and may not join it again.
public struct RemovedFromCallData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// The host who removed them; absent when the app's backend did (`DELETE` on the admin API).
    public var by: User?

    /// Makes the push data.
    public init(sessionId: String, by: User?) {
        self.sessionId = sessionId
        self.by = by
    }
}

/// The `data` of `onSessionEvent`: an app-defined event a participant sent to the session.
public struct SessionEventData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// The event's type, as the sender's app named it.
    public var type: String
    /// What the sender attached; absent when nothing.
    public var data: JSONValue?
    /// Who sent it.
    public var user: User

    /// Makes the push data.
    public init(sessionId: String, type: String, data: JSONValue?, user: User) {
        self.sessionId = sessionId
        self.type = type
        self.data = data
        self.user = user
    }
}

/// The `data` of `onRecordingToggled`: a participant started or stopped the recording.
public struct RecordingToggledData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// True when the recording started, false when it stopped.
    public var recordingStarted: Bool
    /// Who started or stopped it.
    public var user: User

    /// Makes the push data.
    public init(sessionId: String, recordingStarted: Bool, user: User) {
        self.sessionId = sessionId
        self.recordingStarted = recordingStarted
        self.user = user
    }
}

/// The `data` of `onCallSwitchedToVideo`: the session's audio call is a video call now.
public struct CallSwitchedToVideoData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// Who switched it.
    public var requestedBy: User

    /// Makes the push data.
    public init(sessionId: String, requestedBy: User) {
        self.sessionId = sessionId
        self.requestedBy = requestedBy
    }
}

/// The `data` of `onSessionTimeout`: this user was alone in the session for their idle timeout and was removed.
public struct SessionTimeoutData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String

    /// Makes the push data.
    public init(sessionId: String) {
        self.sessionId = sessionId
    }
}

/// The `data` of `onCallEnded`: the session is over.
public struct CallEndedData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String

    /// Makes the push data.
    public init(sessionId: String) {
        self.sessionId = sessionId
    }
}

/// The `data` of `onCallHeld` and `onCallResumed`: a participant put the call on hold, or took
/// it off hold.
public struct CallHoldData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// Who did.
    public var user: User

    /// Makes the push data.
    public init(sessionId: String, user: User) {
        self.sessionId = sessionId
        self.user = user
    }
}
