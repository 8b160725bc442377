/// WebSocket close codes the gateway uses, so the server and the client agree on their meaning.
public enum CloseCode {
    /// No `connect` within the deadline, or a bad or expired token.
    public static let unauthorized: UInt16 = 4001
    /// The connection token expired and no `refreshToken` replaced it in time.
    public static let tokenExpired: UInt16 = 4003
    /// The user already has the configured number of devices connected.
    public static let tooManyDevices: UInt16 = 4009
    /// The connection's outbound queue passed its cap: the client reads too slowly.
    public static let tooSlow: UInt16 = 4008
    /// The socket sent messages faster than the configured rate.
    public static let rateLimited: UInt16 = 4029
    /// A message larger than the configured cap arrived.
    public static let messageTooBig: UInt16 = 1009
    /// The server is shutting down.
    public static let goingAway: UInt16 = 1001
}
