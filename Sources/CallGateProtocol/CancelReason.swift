/// Why a ringing device stops ringing (`onIncomingCallCanceled.reason`).
public enum CancelReason: String, Codable, Hashable, Sendable, CaseIterable {
    /// Another device of the same user accepted.
    case answeredElsewhere
    /// Another device of the same user declined.
    case rejectedElsewhere
    /// The caller cancelled, or vanished and the grace period passed.
    case cancelled
    /// The ring timeout passed.
    case unanswered
    /// The group call ended while this member was still ringing.
    case ended
}
