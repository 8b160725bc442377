/// The `data` of a request that only names the call or session to act on: `acceptCall`,
/// `endCall`, `generateToken`, `leaveSession`, `startRecording`, `stopRecording`, `switchToVideo`.
public struct SessionParams: Codable, Hashable, Sendable {
    /// The call's (or session's) id.
    public var sessionId: String

    /// Makes session params.
    public init(sessionId: String) {
        self.sessionId = sessionId
    }
}
