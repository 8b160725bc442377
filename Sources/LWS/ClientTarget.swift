/// Where a client connection goes: `ws://host:port/path` (or `wss://` with `tls`), optionally
/// from a chosen source address.
public struct ClientTarget: Sendable {
    public var host: String
    public var port: Int
    public var path: String
    /// The Origin to send, if any, as a host: lws 4.1 sends `Origin: http://<origin>`.
    public var origin: String?
    /// Local address to bind before connecting (spreads sockets over 127.0.0.x), or nil.
    public var sourceAddress: String?
    /// Whether the handshake names the context's subprotocol (`Sec-WebSocket-Protocol`).
    public var offersSubprotocol = true
    /// TLS for this connection (wss://), or nil for plain ws://. The context must have been
    /// created with `ContextConfiguration.clientTLS`.
    public var tls: ClientTLS?

    public init(
        host: String, port: Int, path: String = "/ws", origin: String? = nil, sourceAddress: String? = nil,
        tls: ClientTLS? = nil
    ) {
        self.host = host
        self.port = port
        self.path = path
        self.origin = origin
        self.sourceAddress = sourceAddress
        self.tls = tls
    }
}
