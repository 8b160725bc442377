/// The machine-readable code of an error reply. Raw values are the exact wire strings
/// (note `ERROR_CALL_IN_PROGRESS`, spelled as in the calling SDKs).
public enum ErrorCode: String, Codable, Hashable, Sendable, CaseIterable {
    /// The connect token is missing, malformed, badly signed or expired.
    case authError = "AUTH_ERR"
    /// An op other than `connect` arrived before a successful `connect`.
    case userNotLoggedIn = "ERR_USER_NOT_LOGGED_IN"
    /// The frame or a field of it is malformed, or a value is out of range.
    case badRequest = "ERR_BAD_REQUEST"
    /// A user tried to call themself.
    case callingSelf = "ERR_CALLING_SELF"
    /// The user is already ringing someone or taking part in a call.
    case callInProgress = "ERROR_CALL_IN_PROGRESS"
    /// No call with this session id is known.
    case callNotFound = "ERR_CALL_NOT_FOUND"
    /// The session id is empty, too long or has characters a session id never has.
    case invalidSessionID = "ERR_INVALID_SESSION_ID"
    /// The op is not for this user to perform on this call.
    case notParticipant = "ERR_NOT_PARTICIPANT"
    /// `muteParticipant` or `removeParticipant` from a participant who is not the session's
    /// host (the call's initiator; for a meeting, the user who started it).
    case notHost = "ERR_NOT_HOST"
    /// The call was already answered (by this user, or it is past ringing).
    case callAlreadyJoined = "ERR_CALL_ALREADY_JOINED"
    /// The call was cancelled by its caller.
    case callCancelled = "ERR_CALL_CANCELLED"
    /// The call was declined (rejected or busy).
    case callRejected = "ERR_CALL_REJECTED"
    /// The call ended or went unanswered.
    case callEnded = "ERR_CALL_ENDED"
    /// The group does not exist or the caller is not a member of it.
    case groupNotFound = "ERR_GROUP_NOT_FOUND"
    /// The gateway could not produce the answer (a result that could not be encoded); the
    /// request had no effect beyond what its error message says.
    case `internal` = "ERR_INTERNAL"
    /// `connect` for a user who already has `--max-devices-per-user` devices connected; the
    /// socket is closed with 4009 after the reply.
    case tooManyDevices = "ERR_TOO_MANY_DEVICES"
    /// `joinSession` of a standalone session by a user already in `--max-sessions-per-user` of them.
    case tooManySessions = "ERR_TOO_MANY_SESSIONS"
    /// `initiateCall`, or a `joinSession` that starts a meeting, by a user who started
    /// `--max-calls-per-minute` calls and meetings in the last minute.
    case rateLimited = "ERR_RATE_LIMITED"
    /// `inviteToCall` that would bring the call past `--max-call-members` users taking part or
    /// ringing.
    case tooManyParticipants = "ERR_TOO_MANY_PARTICIPANTS"
    /// `startRecording` in a session that had `--max-recordings-per-session` recordings already.
    case tooManyRecordings = "ERR_TOO_MANY_RECORDINGS"
    /// An op that writes the call log while the store is behind (`--max-queued-writes` writes
    /// waiting, or `--max-held-output` outputs waiting for them): it had no effect; try again.
    case storeUnavailable = "ERR_STORE_UNAVAILABLE"
    /// Cluster mode: an op on a call or session that another node owns, when that node did not
    /// answer within `--cluster-forward-timeout` or could not be found or reached; the op may
    /// or may not have been done there.
    case callOwnerUnreachable = "ERR_CALL_OWNER_UNREACHABLE"
    /// Cluster mode: an op on a call (or `initiateCall`) while this node is cut off from the
    /// cluster, an op on a call another node took over meanwhile (its write was fenced out), or
    /// one that must claim its user in Redis (`initiateCall`, `acceptCall`) while Redis cannot
    /// be reached: it had no effect; try again shortly.
    case clusterUnavailable = "ERR_CLUSTER_UNAVAILABLE"
}

/// The `error` object of a failed reply: a code for programs and a message for people.
///
/// It is also a Swift `Error`, so client code can throw what the server answered.
public struct ErrorBody: Codable, Hashable, Sendable, Error {
    /// What went wrong, as a stable code.
    public var code: ErrorCode
    /// A human-readable explanation, naming the offending field where there is one.
    public var message: String

    /// Makes an error body.
    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }
}

/// WebSocket close codes the gateway uses, so the server and the client agree on their meaning.
public enum CloseCode {
    /// Close codes after which a client's reconnecting cannot help: 4001 and 4003 need a new
    /// token, 4009 a device fewer, and 4010 closed a socket a newer one of the device replaced.
    public static let final: Set<UInt16> = [unauthorized, tokenExpired, tooManyDevices, replaced]

    /// No `connect` within the deadline, or a bad or expired token.
    public static let unauthorized: UInt16 = 4001
    /// The connection token expired and no `refreshToken` replaced it in time.
    public static let tokenExpired: UInt16 = 4003
    /// The user already has the configured number of devices connected.
    public static let tooManyDevices: UInt16 = 4009
    /// A newer connection of the same device took this one over (its `connect` named this
    /// connection in `recover.connectionId`).
    public static let replaced: UInt16 = 4010
    /// Cluster mode: the device's push sequence broke (Redis lost it, or the node missed
    /// pushes): reconnect with `recover`, which replays what is kept or says to rebuild.
    public static let sequenceBroken: UInt16 = 4011
    /// The connection's outbound queue passed its cap: the client reads too slowly.
    public static let tooSlow: UInt16 = 4008
    /// The socket sent messages faster than the configured rate.
    public static let rateLimited: UInt16 = 4029
    /// A message larger than the configured cap arrived.
    public static let messageTooBig: UInt16 = 1009
    /// The node stops or drains for a deploy: reconnect (to another node, or to this one once
    /// it is back), after the delay the close reason's ``ReconnectHint`` gives.
    public static let serviceRestart: UInt16 = 1012
}
