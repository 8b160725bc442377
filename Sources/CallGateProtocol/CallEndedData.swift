/// The `data` of `onCallEnded`: the session is over.
public struct CallEndedData: Codable, Hashable, Sendable {
    /// The session.
    public var sessionId: String

    /// Makes the push data.
    public init(sessionId: String) {
        self.sessionId = sessionId
    }
}
