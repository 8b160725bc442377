/// The `data` of an `acceptCall` or `endCall` request: just the call to act on.
public struct SessionParams: Codable, Hashable, Sendable {
    /// The call's session id.
    public var sessionId: String

    /// Makes session params.
    public init(sessionId: String) {
        self.sessionId = sessionId
    }
}
