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
    /// Unix ms after which a socket still not connected is closed with 4001.
    let authDeadline: Int64
    var phase = Phase.awaitingConnect
    /// The address the socket is counted under for `--max-connections-per-address`.
    let clientAddress: String
    /// What is left of the socket's message rate; nil without a rate limit.
    var messageBudget: TokenBucket?
    /// Set once the socket went over its rate: it is closing, and its messages are ignored.
    var rateLimited = false

    init(connectionID: ConnectionID, authDeadline: Int64, clientAddress: String, messageBudget: TokenBucket?) {
        self.connectionID = connectionID
        self.authDeadline = authDeadline
        self.clientAddress = clientAddress
        self.messageBudget = messageBudget
    }

    /// The user, once connected.
    var user: User? {
        if case .connected(let user) = phase { return user }
        return nil
    }
}
