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
