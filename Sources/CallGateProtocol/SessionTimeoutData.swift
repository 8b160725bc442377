/// The `data` of `onSessionTimeout`: this user was alone in the session for their idle timeout and was removed.
public struct SessionTimeoutData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String

    /// Makes the push data.
    public init(sessionId: String) {
        self.sessionId = sessionId
    }
}
