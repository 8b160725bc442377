/// The `result` of a successful `refreshToken`.
public struct RefreshTokenResult: Codable, Hashable, Sendable {
    /// When the socket's token now expires, Unix seconds: the later of the old and the new
    /// token's `exp`.
    public var tokenExpiresAt: Int64

    /// Makes a refresh result.
    public init(tokenExpiresAt: Int64) {
        self.tokenExpiresAt = tokenExpiresAt
    }
}
