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

    /// The op name of this request.
    public var op: Op {
        switch self {
        case .connect: .connect
        case .refreshToken: .refreshToken
        case .ping: .ping
        case .initiateCall: .initiateCall
        case .acceptCall: .acceptCall
        case .rejectCall: .rejectCall
        case .endCall: .endCall
        case .generateToken: .generateToken
        case .joinSession: .joinSession
        case .leaveSession: .leaveSession
        case .setMuted: .setMuted
        case .startRecording: .startRecording
        case .stopRecording: .stopRecording
        case .switchToVideo: .switchToVideo
        }
    }
}
