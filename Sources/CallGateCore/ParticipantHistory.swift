/// One user's part in a session, over every stay (a user may leave a session and join again).
public struct ParticipantHistory: Hashable, Sendable {
    /// The user's id.
    public var uid: String
    /// The display name they first joined with.
    public var name: String
    /// The picture URL they first joined with.
    public var avatar: String?
    /// When they first joined, Unix seconds.
    public var joinedAt: Int64
    /// When they last left, Unix seconds; nil while they are in the session.
    public var leftAt: Int64?
    /// Seconds spent in the session over every stay; a stay in progress counts up to now.
    public var totalSeconds: Int64

    /// Makes a participant history.
    public init(uid: String, name: String, avatar: String? = nil, joinedAt: Int64, leftAt: Int64? = nil, totalSeconds: Int64) {
        self.uid = uid
        self.name = name
        self.avatar = avatar
        self.joinedAt = joinedAt
        self.leftAt = leftAt
        self.totalSeconds = totalSeconds
    }
}
