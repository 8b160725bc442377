/// The `data` of `onOutgoingCallRejected`: the caller's call will not be answered.
public struct OutgoingCallRejectedData: Codable, Hashable, Sendable {
    /// The call, in its terminal status (`rejected`, `busy` or `unanswered`).
    public var call: Call
    /// Who declined or was busy; absent when the ring timed out.
    public var by: User?

    /// Makes the push data.
    public init(call: Call, by: User?) {
        self.call = call
        self.by = by
    }
}
