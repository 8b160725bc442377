/// The `data` of a `refreshToken` request.
public struct RefreshTokenParams: Codable, Hashable, Sendable {
    /// A newer connection token (an HS256 JWT) for the user the socket is connected as.
    public var token: String

    /// Makes refresh params.
    public init(token: String) {
        self.token = token
    }
}
