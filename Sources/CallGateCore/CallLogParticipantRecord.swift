import CallGateProtocol

/// One user of a call as the store keeps it: their part in the call plus the stay in progress,
/// so a reader can count it up to any time and a restarted gateway can go on counting.
public struct CallLogParticipantRecord: Codable, Hashable, Sendable {
    /// The user's id.
    public var uid: String
    /// The display name.
    public var name: String
    /// An optional picture URL.
    public var avatar: String?
    /// Whether they took part, declined, missed it, or still ring.
    public var state: CallLogParticipantState
    /// When their first stay started, Unix seconds.
    public var joinedAt: Int64?
    /// When their last stay ended, Unix seconds; nil while a stay runs or before any.
    public var leftAt: Int64?
    /// Seconds of the stays that are over.
    public var closedSeconds: Int64
    /// When the stay in progress started, Unix seconds; nil when none runs.
    public var stayStartedAt: Int64?

    /// Makes a participant record.
    public init(
        uid: String, name: String, avatar: String? = nil, state: CallLogParticipantState,
        joinedAt: Int64? = nil, leftAt: Int64? = nil, closedSeconds: Int64 = 0, stayStartedAt: Int64? = nil
    ) {
        self.uid = uid
        self.name = name
        self.avatar = avatar
        self.state = state
        self.joinedAt = joinedAt
        self.leftAt = leftAt
        self.closedSeconds = closedSeconds
        self.stayStartedAt = stayStartedAt
    }

    /// The wire view, with a stay in progress counted up to `now`.
    public func participant(at now: Int64) -> CallLogParticipant {
        let running = stayStartedAt.map { max(0, now - $0) } ?? 0
        return CallLogParticipant(
            uid: uid, name: name, avatar: avatar, joinedAt: joinedAt, leftAt: leftAt,
            totalDuration: closedSeconds + running, state: state)
    }
}
