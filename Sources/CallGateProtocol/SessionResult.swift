/// The `result` of the session ops (`joinSession`, `leaveSession`, `setMuted`, `startRecording`,
/// `stopRecording`, `switchToVideo`): the session as it stands after the op.
public struct SessionResult: Codable, Hashable, Sendable {
    /// The session.
    public var session: Session

    /// Makes a session result.
    public init(session: Session) {
        self.session = session
    }
}
