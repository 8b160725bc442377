/// Where a call stands in the ringing state machine.
///
/// `initiated` and `ongoing` are live; every other status is terminal and never changes again.
public enum CallStatus: String, Codable, Hashable, Sendable, CaseIterable {
    /// Ringing: nobody has answered yet.
    case initiated
    /// Answered: at least one callee joined the caller.
    case ongoing
    /// The ring timeout passed without an answer.
    case unanswered
    /// The callee (or, in a group, every member rung) declined.
    case rejected
    /// The callee was busy: either automatically (already in a call) or by declining with `busy`.
    case busy
    /// The caller hung up (or vanished) before anyone answered.
    case cancelled
    /// An answered call that is over.
    case ended

    /// Whether the call is over, so no op may change it any more.
    public var isTerminal: Bool {
        switch self {
        case .initiated, .ongoing: false
        case .unanswered, .rejected, .busy, .cancelled, .ended: true
        }
    }
}
