/// The `data` of `onCallEndedMessageReceived`: a participant left or ended an answered call.
public struct CallEndedMessageReceivedData: Codable, Hashable, Sendable {
    /// The call as it stands now (`ended`, or still `ongoing` when a group call goes on).
    public var call: Call
    /// Who left.
    public var by: User
    /// Whether they hung up or disconnected.
    public var reason: EndReason

    /// Makes the push data.
    public init(call: Call, by: User, reason: EndReason) {
        self.call = call
        self.by = by
        self.reason = reason
    }
}
