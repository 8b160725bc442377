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
