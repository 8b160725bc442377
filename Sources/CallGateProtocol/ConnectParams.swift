/// The `data` of a `connect` request.
public struct ConnectParams: Codable, Hashable, Sendable {
    /// The connection token (an HS256 JWT) naming the user.
    public var token: String

    /// Makes connect params.
    public init(token: String) {
        self.token = token
    }
}
