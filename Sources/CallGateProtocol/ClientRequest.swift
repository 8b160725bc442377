/// A client request: the op together with its typed params.
public enum ClientRequest: Hashable, Sendable {
    /// Authenticate the socket.
    case connect(ConnectParams)
    /// Replace the socket's connection token with a newer one for the same user.
    case refreshToken(RefreshTokenParams)
    /// Ask for the server time.
    case ping
    /// Ring a user or a group.
    case initiateCall(InitiateCallParams)
    /// Answer a ringing call.
    case acceptCall(SessionParams)
    /// Tell the caller this device shows the ringing call.
    case confirmRinging(SessionParams)
    /// Decline or cancel a ringing call.
    case rejectCall(RejectCallParams)
    /// Hang up.
    case endCall(SessionParams)
    /// Ask for a call token for a session.
    case generateToken(SessionParams)
    /// Join a session with a call token.
    case joinSession(JoinSessionParams)
    /// Leave a session.
    case leaveSession(SessionParams)
    /// Change one's own mute state in a session.
    case setMuted(SetMutedParams)
    /// Start recording a session.
    case startRecording(SessionParams)
    /// Stop recording a session.
    case stopRecording(SessionParams)
    /// Make the session's call a video call.
    case switchToVideo(SessionParams)
    /// Mark the user's missed calls seen, on every device.
    case markCallsSeen(MarkCallsSeenParams)
    /// The host mutes a participant's audio.
    case muteParticipant(ParticipantParams)
    /// The host removes a participant from the call's session.
    case removeParticipant(ParticipantParams)
    /// Send an app-defined event (raise hand, a reaction) to the others in a session.
    case sendSessionEvent(SessionEventParams)
    /// Put the call on hold for this user.
    case holdCall(SessionParams)
    /// Take the call off hold for this user.
    case resumeCall(SessionParams)
    /// Ring more users into an answered call.
    case inviteToCall(InviteParams)

    /// The op name of this request.
    public var op: Op {
        switch self {
        case .connect: .connect
        case .refreshToken: .refreshToken
        case .ping: .ping
        case .initiateCall: .initiateCall
        case .acceptCall: .acceptCall
        case .confirmRinging: .confirmRinging
        case .rejectCall: .rejectCall
        case .endCall: .endCall
        case .generateToken: .generateToken
        case .joinSession: .joinSession
        case .leaveSession: .leaveSession
        case .setMuted: .setMuted
        case .startRecording: .startRecording
        case .stopRecording: .stopRecording
        case .switchToVideo: .switchToVideo
        case .markCallsSeen: .markCallsSeen
        case .muteParticipant: .muteParticipant
        case .removeParticipant: .removeParticipant
        case .sendSessionEvent: .sendSessionEvent
        case .holdCall: .holdCall
        case .resumeCall: .resumeCall
        case .inviteToCall: .inviteToCall
        }
    }
}

/// The name of a client request, as sent in the frame's `op` field.
public enum Op: String, Codable, Hashable, Sendable, CaseIterable {
    /// Authenticates the socket with a token; must be the first request.
    case connect
    /// Extends the socket's life with a newer connection token for the same user.
    case refreshToken
    /// Asks for the server time; also keeps idle sockets alive.
    case ping
    /// Rings a user or a group.
    case initiateCall
    /// Answers a ringing call.
    case acceptCall
    /// Confirms that this device shows the ringing call, for the caller's ring progress.
    case confirmRinging
    /// Declines (callee) or cancels (caller) a ringing call.
    case rejectCall
    /// Hangs up: leaves an answered call, or cancels one's own ringing call.
    case endCall
    /// Asks for a call token bound to one session and this user, to present to `joinSession`.
    case generateToken
    /// Joins a call session with a call token.
    case joinSession
    /// Leaves a call session.
    case leaveSession
    /// Mutes or unmutes one's audio or video in a session.
    case setMuted
    /// Starts recording a session.
    case startRecording
    /// Stops recording a session.
    case stopRecording
    /// Turns an audio call into a video call.
    case switchToVideo
    /// Marks the user's missed calls seen (all, or up to one call) on every device.
    case markCallsSeen
    /// Mutes another participant's audio; the session's host only.
    case muteParticipant
    /// Removes another participant from the session; the session's host only.
    case removeParticipant
    /// Sends an app-defined event to the session's other participants; not stored.
    case sendSessionEvent
    /// Puts the call on hold on this user's side (their media paused); the others are told.
    case holdCall
    /// Takes the call off hold on this user's side.
    case resumeCall
    /// Rings more users into an answered call, for the same session.
    case inviteToCall
}

extension ClientRequest {
    /// Builds the request for `op` from its `data` fields. Unknown fields are ignored.
    init(op: Op, reading data: FrameFieldReader) throws(FrameDecodingError) {
        switch op {
        case .connect:
            self = .connect(ConnectParams(
                token: try data.string("token"),
                recover: try data.optionalReader("recover").map { reader throws(FrameDecodingError) in
                    try RecoverParams(reading: reader)
                }
            ))
        case .refreshToken:
            self = .refreshToken(RefreshTokenParams(token: try data.string("token")))
        case .ping:
            self = .ping
        case .initiateCall:
            self = .initiateCall(InitiateCallParams(
                receiverId: try data.string("receiverId"),
                receiverType: try data.choice("receiverType", as: ReceiverType.self),
                callType: try data.choice("callType", as: CallType.self),
                timeout: try data.optionalInteger("timeout"),
                metadata: try data.optionalObject("metadata"),
                callWaiting: try data.optionalBool("callWaiting")
            ))
        case .acceptCall:
            self = .acceptCall(SessionParams(sessionId: try data.string("sessionId")))
        case .confirmRinging:
            self = .confirmRinging(SessionParams(sessionId: try data.string("sessionId")))
        case .rejectCall:
            self = .rejectCall(RejectCallParams(
                sessionId: try data.string("sessionId"),
                status: try data.choice("status", as: RejectStatus.self)
            ))
        case .endCall:
            self = .endCall(SessionParams(sessionId: try data.string("sessionId")))
        case .generateToken:
            self = .generateToken(SessionParams(sessionId: try data.string("sessionId")))
        case .joinSession:
            self = .joinSession(JoinSessionParams(
                callToken: try data.string("callToken"),
                audioOnly: try data.optionalBool("audioOnly"),
                idleTimeout: try data.optionalInteger("idleTimeout")
            ))
        case .leaveSession:
            self = .leaveSession(SessionParams(sessionId: try data.string("sessionId")))
        case .setMuted:
            self = .setMuted(SetMutedParams(
                sessionId: try data.string("sessionId"),
                audioMuted: try data.optionalBool("audioMuted"),
                videoMuted: try data.optionalBool("videoMuted")
            ))
        case .startRecording:
            self = .startRecording(SessionParams(sessionId: try data.string("sessionId")))
        case .stopRecording:
            self = .stopRecording(SessionParams(sessionId: try data.string("sessionId")))
        case .switchToVideo:
            self = .switchToVideo(SessionParams(sessionId: try data.string("sessionId")))
        case .markCallsSeen:
            self = .markCallsSeen(MarkCallsSeenParams(sessionId: try data.optionalString("sessionId")))
        case .muteParticipant:
            self = .muteParticipant(ParticipantParams(sessionId: try data.string("sessionId"), uid: try data.string("uid")))
        case .removeParticipant:
            self = .removeParticipant(ParticipantParams(sessionId: try data.string("sessionId"), uid: try data.string("uid")))
        case .sendSessionEvent:
            self = .sendSessionEvent(SessionEventParams(
                sessionId: try data.string("sessionId"),
                type: try data.string("type"),
                data: try data.optionalValue("data")
            ))
        case .holdCall:
            self = .holdCall(SessionParams(sessionId: try data.string("sessionId")))
        case .resumeCall:
            self = .resumeCall(SessionParams(sessionId: try data.string("sessionId")))
        case .inviteToCall:
            self = .inviteToCall(InviteParams(
                sessionId: try data.string("sessionId"), receiverIds: try data.strings("receiverIds")))
        }
    }
}

/// The `data` of a `connect` request.
public struct ConnectParams: Codable, Hashable, Sendable {
    /// The connection token (an HS256 JWT) naming the user.
    public var token: String
    /// Where this device left off, to be given the pushes it missed; nil for a fresh start.
    public var recover: RecoverParams?

    /// Makes connect params.
    public init(token: String, recover: RecoverParams? = nil) {
        self.token = token
        self.recover = recover
    }
}

/// The `data` of a `refreshToken` request.
public struct RefreshTokenParams: Codable, Hashable, Sendable {
    /// A newer connection token (an HS256 JWT) for the user the socket is connected as.
    public var token: String

    /// Makes refresh params.
    public init(token: String) {
        self.token = token
    }
}

/// The `data` of an `initiateCall` request.
public struct InitiateCallParams: Codable, Hashable, Sendable {
    /// The uid of the callee, or the guid of the group.
    public var receiverId: String
    /// Whether `receiverId` names a user or a group.
    public var receiverType: ReceiverType
    /// Audio or video.
    public var callType: CallType
    /// How long to ring, in seconds; nil means the server default.
    public var timeout: Int?
    /// Free-form data to attach to the call.
    public var metadata: [String: JSONValue]?
    /// Whether the caller's app allows call waiting: a callee in an answered call is rung
    /// instead of found busy, and accepting puts their call on hold. nil means no.
    public var callWaiting: Bool?

    /// Makes initiate params.
    public init(
        receiverId: String,
        receiverType: ReceiverType,
        callType: CallType,
        timeout: Int? = nil,
        metadata: [String: JSONValue]? = nil,
        callWaiting: Bool? = nil
    ) {
        self.receiverId = receiverId
        self.receiverType = receiverType
        self.callType = callType
        self.timeout = timeout
        self.metadata = metadata
        self.callWaiting = callWaiting
    }
}

/// The `data` of a request that only names the call or session to act on: `acceptCall`,
/// `confirmRinging`, `endCall`, `generateToken`, `leaveSession`, `startRecording`, `stopRecording`, `switchToVideo`,
/// `holdCall`, `resumeCall`.
public struct SessionParams: Codable, Hashable, Sendable {
    /// The call's (or session's) id.
    public var sessionId: String

    /// Makes session params.
    public init(sessionId: String) {
        self.sessionId = sessionId
    }
}

/// The `data` of a `markCallsSeen` request.
public struct MarkCallsSeenParams: Codable, Hashable, Sendable {
    /// The call up to which (in call log order, it included) the user's missed calls are seen;
    /// nil: every missed call so far.
    public var sessionId: String?

    /// Makes markCallsSeen params.
    public init(sessionId: String? = nil) {
        self.sessionId = sessionId
    }
}

/// The `data` of a `rejectCall` request.
public struct RejectCallParams: Codable, Hashable, Sendable {
    /// The call's session id.
    public var sessionId: String
    /// `rejected` or `busy` from a callee, `cancelled` from the caller.
    public var status: RejectStatus

    /// Makes reject params.
    public init(sessionId: String, status: RejectStatus) {
        self.sessionId = sessionId
        self.status = status
    }
}

/// The `data` of a `joinSession` request.
public struct JoinSessionParams: Codable, Hashable, Sendable {
    /// The call token from `generateToken`: it names the session and the user.
    public var callToken: String
    /// Whether this device joins with audio only; a new standalone session is then an audio call.
    /// Absent means false.
    public var audioOnly: Bool?
    /// How long, in seconds, this user may stay alone in the session before being removed;
    /// absent means the server default.
    public var idleTimeout: Int?

    /// Makes join params.
    public init(callToken: String, audioOnly: Bool? = nil, idleTimeout: Int? = nil) {
        self.callToken = callToken
        self.audioOnly = audioOnly
        self.idleTimeout = idleTimeout
    }
}

/// The `data` of a `setMuted` request. An absent field keeps its current value.
public struct SetMutedParams: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// Whether the user's audio is muted now; nil keeps it.
    public var audioMuted: Bool?
    /// Whether the user's video is muted now; nil keeps it.
    public var videoMuted: Bool?

    /// Makes mute params.
    public init(sessionId: String, audioMuted: Bool? = nil, videoMuted: Bool? = nil) {
        self.sessionId = sessionId
        self.audioMuted = audioMuted
        self.videoMuted = videoMuted
    }
}

/// The `data` of `muteParticipant` and `removeParticipant`: whom, in which session.
public struct ParticipantParams: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// The participant acted on.
    public var uid: String

    /// Makes participant params.
    public init(sessionId: String, uid: String) {
        self.sessionId = sessionId
        self.uid = uid
    }
}

/// The `data` of a `sendSessionEvent` request.
public struct SessionEventParams: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// What the event is, as the app names it (`raiseHand`, `reaction`, `screenShare`).
    public var type: String
    /// What goes with it, any JSON value; nil when absent or null.
    public var data: JSONValue?

    /// Makes session event params.
    public init(sessionId: String, type: String, data: JSONValue? = nil) {
        self.sessionId = sessionId
        self.type = type
        self.data = data
    }
}

/// The `data` of an `inviteToCall` request.
public struct InviteParams: Codable, Hashable, Sendable {
    /// The answered call to invite into.
    public var sessionId: String
    /// The users to ring into it.
    public var receiverIds: [String]

    /// Makes invite params.
    public init(sessionId: String, receiverIds: [String]) {
        self.sessionId = sessionId
        self.receiverIds = receiverIds
    }
}
