/// The `data` of `onUserListChanged`: the participant list after a join or a leave.
public struct UserListChangedData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String
    /// Everyone in the session now, ordered by `joinedAt`.
    public var participants: [Participant]

    /// Makes the push data.
    public init(sessionId: String, participants: [Participant]) {
        self.sessionId = sessionId
        self.participants = participants
    }
}
