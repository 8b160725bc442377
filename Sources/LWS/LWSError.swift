/// Failures of the libwebsockets layer that callers can act on.
public enum LWSError: Error, CustomStringConvertible {
    /// `lws_create_context` failed, typically because the address is in use or invalid.
    case contextCreationFailed(String)
    /// `lws_client_connect_via_info` refused the connection attempt at once.
    case connectFailed(String)

    public var description: String {
        switch self {
        case .contextCreationFailed(let detail): "cannot start libwebsockets: \(detail)"
        case .connectFailed(let detail): "cannot connect: \(detail)"
        }
    }
}
