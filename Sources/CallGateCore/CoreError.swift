import CallGateProtocol

/// Why the core refused an op: the code and message of the error reply the server sends.
public struct CoreError: Error, Hashable, Sendable {
    /// The wire error code.
    public var code: ErrorCode
    /// A human-readable explanation.
    public var message: String

    /// Makes a core error.
    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }
}

extension CoreError {
    /// An op before `connect`.
    static let notLoggedIn = CoreError(code: .userNotLoggedIn, message: "connect first")
    /// A 1:1 call to oneself.
    static let callingSelf = CoreError(code: .callingSelf, message: "you cannot call yourself")
    /// A new call, or an accept, while the user rings someone or takes part in a call.
    static let callInProgress = CoreError(
        code: .callInProgress, message: "you are already ringing someone or in a call")
    /// `ERROR_CALL_IN_PROGRESS` saying why another call keeps the user (call waiting).
    static func busyElsewhere(_ message: String) -> CoreError {
        CoreError(code: .callInProgress, message: message)
    }
    /// A well-formed session id that names no call, live or remembered.
    static let callNotFound = CoreError(code: .callNotFound, message: "no such call")
    /// A session id that breaks the session id rules.
    static let invalidSessionID = CoreError(
        code: .invalidSessionID, message: "sessionId must be 1 to 128 characters of A-Z a-z 0-9 . _ : -")
    /// A session op from a device that has not joined the session (or left it).
    static let notJoined = CoreError(code: .notParticipant, message: "you have not joined this session")
    /// An unknown group, or one the caller is not a member of (the two are not told apart).
    static let groupNotFound = CoreError(
        code: .groupNotFound, message: "no such group, or you are not a member of it")

    /// Cluster mode: no call id is left until the next block arrives from the database.
    static let noCallIDs = CoreError(
        code: .storeUnavailable,
        message: "no call ids reserved from the database yet (is it reachable?); this op was not done: try again shortly")

    /// A field the frame decoder accepted but the core finds out of range.
    static func tooManySessions(_ limit: Int) -> CoreError {
        CoreError(code: .tooManySessions, message: "you are in \(limit) standalone sessions already: leave one first")
    }

    /// The user started `limit` calls and meetings in the last minute (the cluster counts them
    /// on the nodes together, with the same answer).
    public static func callRateLimited(_ limit: Int) -> CoreError {
        CoreError(
            code: .rateLimited, message: "you started \(limit) calls or meetings in the last minute: wait before starting another")
    }

    /// A host control from a participant who is not the session's host.
    static let notHost = CoreError(
        code: .notHost, message: "only the host (the caller; for a meeting, who started it) may do this")

    /// A user who sent `limit` session events (holds among them) in the last ten seconds.
    static func sessionEventsRateLimited(_ limit: Int) -> CoreError {
        CoreError(
            code: .rateLimited,
            message: "you sent \(limit) session events and holds in the last 10 seconds: wait before sending another")
    }

    /// An invite that would bring the call past `limit` users taking part or ringing.
    static func tooManyParticipants(_ limit: Int) -> CoreError {
        CoreError(code: .tooManyParticipants, message: "a call may have at most \(limit) users taking part or ringing")
    }

    static func tooManyRecordings(_ limit: Int) -> CoreError {
        CoreError(code: .tooManyRecordings, message: "this session had \(limit) recordings already")
    }

    static func badRequest(_ message: String) -> CoreError {
        CoreError(code: .badRequest, message: message)
    }

    /// An op that is not this user's to perform on this call.
    static func notParticipant(_ message: String) -> CoreError {
        CoreError(code: .notParticipant, message: message)
    }

    /// An op that only makes sense before the call (or the user) was answered.
    static func alreadyJoined(_ message: String) -> CoreError {
        CoreError(code: .callAlreadyJoined, message: message)
    }

    /// The error for acting on a call that finished with `status`.
    static func finished(_ status: CallStatus) -> CoreError {
        switch status {
        case .cancelled:
            CoreError(code: .callCancelled, message: "the call was cancelled")
        case .rejected, .busy:
            CoreError(code: .callRejected, message: "the call was declined")
        case .ended, .unanswered, .initiated, .ongoing:
            CoreError(code: .callEnded, message: "the call is over")
        }
    }

    /// The error for a user whose `state` in a live call does not allow the op.
    static func member(_ state: MemberState) -> CoreError {
        switch state {
        case .ringing:
            notParticipant("you are not in this call: accept it first")
        case .joined:
            alreadyJoined("you already joined this call")
        case .declined:
            CoreError(code: .callRejected, message: "you declined this call")
        case .missed, .left:
            CoreError(code: .callEnded, message: "this call is over for you")
        }
    }
}
