/// The `data` of `onOutgoingCallAccepted`: someone answered.
public struct OutgoingCallAcceptedData: Codable, Hashable, Sendable {
    /// The call, now `ongoing`.
    public var call: Call
    /// Who answered.
    public var by: User

    /// Makes the push data.
    public init(call: Call, by: User) {
        self.call = call
        self.by = by
    }
}
