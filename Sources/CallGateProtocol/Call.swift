/// A call as the wire shows it: in replies, in pushes and in `activeCalls`.
///
/// Timestamps are Unix seconds. Optional fields are omitted from the JSON when nil.
public struct Call: Codable, Hashable, Sendable {
    /// The unguessable id the gateway gave the call.
    public var sessionId: String
    /// Audio or video.
    public var callType: CallType
    /// Whether the call rings a user or a group.
    public var receiverType: ReceiverType
    /// Always `call` for ringing calls.
    public var callCategory: CallCategory
    /// Where the call stands.
    public var callStatus: CallStatus
    /// Who rang.
    public var initiator: User
    /// Who is rung: the callee, or the group (with its member count at the time of the call).
    public var receiver: CallReceiver
    /// When the call was initiated.
    public var initiatedAt: Int64
    /// When the call was first answered.
    public var joinedAt: Int64?
    /// When the call reached a terminal status.
    public var endedAt: Int64?
    /// Free-form data the caller attached, passed through untouched.
    public var metadata: [String: JSONValue]?

    /// Makes a call value.
    public init(
        sessionId: String,
        callType: CallType,
        receiverType: ReceiverType,
        callCategory: CallCategory = .call,
        callStatus: CallStatus,
        initiator: User,
        receiver: CallReceiver,
        initiatedAt: Int64,
        joinedAt: Int64? = nil,
        endedAt: Int64? = nil,
        metadata: [String: JSONValue]? = nil
    ) {
        self.sessionId = sessionId
        self.callType = callType
        self.receiverType = receiverType
        self.callCategory = callCategory
        self.callStatus = callStatus
        self.initiator = initiator
        self.receiver = receiver
        self.initiatedAt = initiatedAt
        self.joinedAt = joinedAt
        self.endedAt = endedAt
        self.metadata = metadata
    }
}
