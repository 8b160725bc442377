/// Where one user ended up in a logged call.
public enum CallLogParticipantState: String, Codable, Hashable, Sendable, CaseIterable {
    /// They took part: the initiator, a callee who accepted, a user who joined a meeting.
    case joined
    /// They declined the call (rejected, or declined as busy).
    case declined
    /// They never answered: the call stopped ringing them, or they were busy in another call.
    case missed
    /// The call still rings them; only in calls that are still `initiated` or `ongoing`.
    case ringing
}
