/// The name of a client request, as sent in the frame's `op` field.
public enum Op: String, Codable, Hashable, Sendable, CaseIterable {
    /// Authenticates the socket with a token; must be the first request.
    case connect
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
}
