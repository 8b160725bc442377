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

    /// Makes a connect result.
    public init(user: User, connectionId: String, serverTime: Int64, activeCalls: [Call]) {
        self.user = user
        self.connectionId = connectionId
        self.serverTime = serverTime
        self.activeCalls = activeCalls
    }
}
