/// The `data` of an `initiateCall` request.
public struct InitiateCallParams: Codable, Hashable, Sendable {
    /// The uid of the callee, or the guid of the group.
    public var receiverId: String
    /// Whether `receiverId` names a user or a group.
    public var receiverType: ReceiverType
    /// Audio or video.
    public var callType: CallType
    /// How long to ring, in seconds; nil means the server default.
    public var timeout: Int?
    /// Free-form data to attach to the call.
    public var metadata: [String: JSONValue]?

    /// Makes initiate params.
    public init(
        receiverId: String,
        receiverType: ReceiverType,
        callType: CallType,
        timeout: Int? = nil,
        metadata: [String: JSONValue]? = nil
    ) {
        self.receiverId = receiverId
        self.receiverType = receiverType
        self.callType = callType
        self.timeout = timeout
        self.metadata = metadata
    }
}
