/// One user of a logged call, over every stay (a group member may leave and join again).
///
/// A stay of a ringing call runs from the user's accept (the initiator's from the first accept)
/// until they leave or the call ends; a meeting stay runs from join to leave.
public struct CallLogParticipant: Codable, Hashable, Sendable {
    /// The user's id.
    public var uid: String
    /// The display name.
    public var name: String
    /// An optional picture URL.
    public var avatar: String?
    /// When their first stay started, Unix seconds; absent if they never took part.
    public var joinedAt: Int64?
    /// When their last stay ended, Unix seconds; absent while they are in the call.
    public var leftAt: Int64?
    /// Seconds over every stay; a stay in progress counts up to the time of the answer.
    public var totalDuration: Int64
    /// Whether they took part, declined or missed it.
    public var state: CallLogParticipantState

    /// Makes a participant value.
    public init(
        uid: String, name: String, avatar: String? = nil, joinedAt: Int64? = nil, leftAt: Int64? = nil,
        totalDuration: Int64, state: CallLogParticipantState
    ) {
        self.uid = uid
        self.name = name
        self.avatar = avatar
        self.joinedAt = joinedAt
        self.leftAt = leftAt
        self.totalDuration = totalDuration
        self.state = state
    }
}
