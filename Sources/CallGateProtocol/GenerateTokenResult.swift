/// The `result` of a `generateToken`: a call token for one session and one user.
public struct GenerateTokenResult: Codable, Hashable, Sendable {
    /// The signed, short-lived token to present to `joinSession`.
    public var callToken: String
    /// The session the token is bound to.
    public var sessionId: String
    /// When the token expires, Unix seconds.
    public var expiresAt: Int64

    /// Makes a token result.
    public init(callToken: String, sessionId: String, expiresAt: Int64) {
        self.callToken = callToken
        self.sessionId = sessionId
        self.expiresAt = expiresAt
    }
}
