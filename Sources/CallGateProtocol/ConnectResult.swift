/// The `result` of a successful `connect`.
public struct ConnectResult: Codable, Hashable, Sendable {
    /// The user the token named.
    public var user: User
    /// The server's id for this socket, useful in logs and support requests.
    public var connectionId: String
    /// The server's clock, Unix milliseconds, so clients can correct their own.
    public var serverTime: Int64
    /// Calls this user is ringing for or taking part in right now, so a device that reconnects
    /// mid-ring shows the right screen.
    public var activeCalls: [Call]
    /// When the token expires, Unix seconds: the socket is closed with 4003 then, unless a
    /// `refreshToken` with a later token came first.
    public var tokenExpiresAt: Int64

    /// Makes a connect result.
    public init(user: User, connectionId: String, serverTime: Int64, activeCalls: [Call], tokenExpiresAt: Int64) {
        self.user = user
        self.connectionId = connectionId
        self.serverTime = serverTime
        self.activeCalls = activeCalls
        self.tokenExpiresAt = tokenExpiresAt
    }
}
