/// Why a client operation failed without a server error reply.
public enum CallGateClientError: Error, Equatable, CustomStringConvertible {
    /// The WebSocket could not be opened (server not running, wrong port, refused upgrade).
    case connectFailed(String)
    /// The socket closed before the reply came; `code` is the server's close code, if any.
    case closed(code: UInt16?)

    public var description: String {
        switch self {
        case .connectFailed(let detail): "cannot connect to the gateway: \(detail)"
        case .closed(let code): "the gateway closed the connection" + (code.map { " (code \($0))" } ?? "")
        }
    }
}
