import CallGateProtocol

/// What a `CallGateConnection` tells the app, in order.
public enum CallGateEvent: Sendable {
    /// `connect` succeeded on a new socket, the first or a reconnect: the connect result (the
    /// user, the calls live now, where the push sequence stands, what was recovered).
    case open(ConnectResult)
    /// A push from the gateway, each once: a push whose `seq` was seen already is dropped.
    case push(Push)
    /// The socket closed: the gateway's close code (nil: no close frame came, the network was
    /// lost) and reason, and whether the connection reconnects by itself. It does not after
    /// `close()`, nor after 4001 and 4003 (the token), 4009 (too many devices) or 4010 (a newer
    /// connection of this device took over).
    case closed(code: UInt16?, reason: String, willReconnect: Bool)
    /// The next reconnect is due after `delay`.
    case reconnecting(attempt: Int, delay: Duration)
    /// After a connect that recovered (every connect after the first): what came back.
    case recovered(RecoveryReport)
    /// An automatic token refresh failed; it is tried again, and the gateway closes the socket
    /// with 4003 at the token's expiry unless a later one succeeds.
    case refreshFailed(String)
}

/// How a reconnect went: whether the missed pushes follow, and what became of the sessions
/// this connection had joined.
public struct RecoveryReport: Sendable, Hashable {
    /// Whether the gateway still held every push since the last one seen; when it did, the
    /// `missed` pushes follow (as `.push` events, in order). Otherwise rebuild the screens from
    /// the connect result's `activeCalls` (the `.open` event before this one).
    public var recovered: Bool
    /// How many missed pushes follow.
    public var missed: Int
    /// Sessions the gateway kept for this device, as they stand now.
    public var resumedSessions: [Session]
    /// Sessions it did not keep, joined again with a fresh call token because their call is live.
    public var rejoinedSessions: [Session]
    /// Ids of the sessions this connection is no longer in: leave their call screens.
    public var lostSessions: [String]

    /// Makes a report.
    public init(recovered: Bool, missed: Int, resumedSessions: [Session], rejoinedSessions: [Session], lostSessions: [String]) {
        self.recovered = recovered
        self.missed = missed
        self.resumedSessions = resumedSessions
        self.rejoinedSessions = rejoinedSessions
        self.lostSessions = lostSessions
    }
}

/// Why a request failed without an error reply from the gateway (those throw `ErrorBody`).
public enum CallGateConnectionError: Error, Hashable, CustomStringConvertible {
    /// The socket could not be opened (no network, wrong URL, TLS refused, no gateway there).
    case connectFailed(String)
    /// No socket is open, or it closed before the reply came; `code` is its close code, if any.
    case disconnected(code: UInt16?)
    /// No reply came within the configuration's `requestTimeout`.
    case timeout(op: String)

    public var description: String {
        switch self {
        case .connectFailed(let detail): "cannot reach the gateway: \(detail)"
        case .disconnected(let code): "not connected to the gateway" + (code.map { " (closed with \($0))" } ?? "")
        case .timeout(let op): "\(op): no reply in time"
        }
    }
}
