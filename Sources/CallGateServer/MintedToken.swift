/// The body of a `POST /v1/tokens` response: `{"token", "expiresAt"}` (Unix seconds).
public struct MintedToken: Codable, Equatable, Sendable {
    /// The JWT to send in `connect`.
    public var token: String
    /// When it expires, in Unix seconds.
    public var expiresAt: Int64

    /// A body for `token`, which expires at `expiresAt`.
    public init(token: String, expiresAt: Int64) {
        self.token = token
        self.expiresAt = expiresAt
    }
}
