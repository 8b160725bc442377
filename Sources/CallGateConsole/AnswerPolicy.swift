import CallGateProtocol

/// How `callgate listen --auto` answers every incoming call.
public enum AnswerPolicy: String, CaseIterable, Sendable {
    case accept
    case reject
    case busy

    /// The `rejectCall` status of a decline; nil for accept.
    public var rejectStatus: RejectStatus? {
        switch self {
        case .accept: nil
        case .reject: .rejected
        case .busy: .busy
        }
    }
}
