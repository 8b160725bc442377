/// A limit the gateway enforced on a client: what it logs, and the HTTP refusal of an upgrade.
enum LimitEvent: Hashable {
    /// An upgrade from a browser Origin not in `--allowed-origin`: 403.
    case originRefused
    /// The client address already has `--max-connections-per-address` sockets open: 429.
    case addressFull
    /// The process already has `--max-connections` sockets open: 503.
    case serverFull
    /// A socket sent more than `--max-messages-per-second`: closed with 4029.
    case rateLimited
    /// A user with `--max-devices-per-user` sockets connected one more: closed with 4009.
    case tooManyDevices

    /// The log line, followed by how many such events it reports.
    var logMessage: String {
        switch self {
        case .originRefused: "refused WebSocket upgrades from an origin not allowed"
        case .addressFull: "refused WebSocket upgrades: the client address has too many sockets open"
        case .serverFull: "refused WebSocket upgrades: the process has the most sockets it may hold"
        case .rateLimited: "closed sockets that sent messages too fast"
        case .tooManyDevices: "closed sockets of users who have the most devices they may connect"
        }
    }

    /// The response to an upgrade refused for this reason (`rateLimited` and `tooManyDevices`
    /// never refuse one: they close an open socket).
    var refusal: HTTPResponse {
        switch self {
        case .originRefused:
            .error(403, .originNotAllowed, "this origin may not open a WebSocket here")
        case .addressFull:
            .error(429, .tooManyConnections, "too many WebSockets open from your address")
        case .serverFull, .rateLimited, .tooManyDevices:
            .error(503, .serverFull, "the gateway holds as many WebSockets as it may; try another instance or later")
        }
    }
}
