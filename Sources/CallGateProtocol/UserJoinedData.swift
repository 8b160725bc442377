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
