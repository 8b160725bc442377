/// One call as `GET /v3.0/calls` shows it to one user: a ringing call (`callCategory` `call`) or
/// a meeting (`meet`), from the gateway's own state transitions.
///
/// Timestamps are Unix seconds. Optional fields are omitted from the JSON when nil.
public struct CallLog: Codable, Hashable, Sendable {
    /// The call's session id; a meeting id may hold several calls over time.
    public var sessionId: String
    /// Who rang, or who joined a meeting first.
    public var initiator: User
    /// Who was rung: a user or a group. Absent for meetings.
    public var receiver: CallReceiver?
    /// `user` or `group`; absent for meetings.
    public var receiverType: ReceiverType?
    /// Audio or video (video once anyone switched to video).
    public var callType: CallType
    /// Where the call stands; see the call status table.
    public var callStatus: CallStatus
    /// `call` (rung) or `meet` (a standalone session).
    public var callCategory: CallCategory
    /// `outgoing` for the initiator, `incoming` for everyone else.
    public var callDirection: CallDirection
    /// When the call was initiated (a meeting: when its first participant joined).
    public var initiatedAt: Int64
    /// When it was first answered (a meeting: its first join); absent if never answered.
    public var startedAt: Int64?
    /// When it reached a terminal status; absent while it lives.
    public var endedAt: Int64?
    /// Seconds from `startedAt` to `endedAt`; 0 for a call never answered or not over yet.
    public var duration: Int64
    /// Whether the call has at least one recording.
    public var hasRecording: Bool
    /// Every recording, in the order they started.
    public var recordings: [CallLogRecording]
    /// The initiator and everyone rung or joined, with their part in the call.
    public var participants: [CallLogParticipant]
    /// True for a callee of a call that was unanswered, cancelled or busy (or that rang them in
    /// vain); absent otherwise.
    public var missed: Bool?
    /// The caller's free-form data, as sent with `initiateCall`.
    public var metadata: [String: JSONValue]?

    /// Makes a call log value.
    public init(
        sessionId: String, initiator: User, receiver: CallReceiver? = nil, receiverType: ReceiverType? = nil,
        callType: CallType, callStatus: CallStatus, callCategory: CallCategory, callDirection: CallDirection,
        initiatedAt: Int64, startedAt: Int64? = nil, endedAt: Int64? = nil, duration: Int64,
        hasRecording: Bool, recordings: [CallLogRecording], participants: [CallLogParticipant],
        missed: Bool? = nil, metadata: [String: JSONValue]? = nil
    ) {
        self.sessionId = sessionId
        self.initiator = initiator
        self.receiver = receiver
        self.receiverType = receiverType
        self.callType = callType
        self.callStatus = callStatus
        self.callCategory = callCategory
        self.callDirection = callDirection
        self.initiatedAt = initiatedAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.duration = duration
        self.hasRecording = hasRecording
        self.recordings = recordings
        self.participants = participants
        self.missed = missed
        self.metadata = metadata
    }
}
