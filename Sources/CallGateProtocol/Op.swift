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
}
