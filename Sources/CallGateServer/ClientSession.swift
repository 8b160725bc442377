import CallGateCore
import CallGateProtocol

/// What the gateway knows about one socket, attached to its `WebSocketConnection`. Service thread only.
final class ClientSession {
    /// Where the socket is in the `connect` handshake.
    enum Phase {
        /// Open, no `connect` yet.
        case awaitingConnect
        /// `connect` received, token being verified off the service thread.
        case verifying
        /// Authenticated as this user; registered with the Core.
        case connected(User)
    }

    let connectionID: ConnectionID
    /// The client's IP address: the TCP peer, or what a trusted proxy forwarded (see
    /// `TrustedProxies`). For logs, and for the limit of sockets per client address.
    let clientAddress: String
    /// The address this socket is counted under as a WebSocket (see `AdmissionControl`): the
    /// forwarded client's when it came through a trusted proxy, nil when its connection is
    /// counted from accept instead.
    var countedAddress: String?
    /// When (the clock's monotonic ms) a socket still not connected is closed with 4001.
    let authDeadline: Int64
    var phase = Phase.awaitingConnect
    /// What is left of the socket's message rate; nil without a rate limit.
    var messageBudget: TokenBucket?
    /// Set once the socket went over its rate: it is closing, and its messages are ignored.
    var rateLimited = false
    /// When the socket's connection token expires, Unix seconds; 0 until connected.
    var tokenExpiresAt: Int64 = 0
    /// The timer that closes the socket with 4003 at `tokenExpiresAt`, once connected.
    var expiryTimer: TimerID?

    init(connectionID: ConnectionID, authDeadline: Int64, clientAddress: String, messageBudget: TokenBucket?) {
        self.connectionID = connectionID
        self.clientAddress = clientAddress
        self.authDeadline = authDeadline
        self.messageBudget = messageBudget
    }

    /// The user, once connected.
    var user: User? {
        if case .connected(let user) = phase { return user }
        return nil
    }
}
