/// What the layer above learns about its WebSockets. Called on the service thread only.
public protocol WebSocketDelegate: AnyObject {
    /// A socket is open (server: upgrade accepted; client: handshake done).
    func webSocketDidOpen(_ connection: WebSocketConnection)
    /// One WebSocket frame of a message arrived (a whole message, a fragment, or an empty
    /// one): the hook for a rate limit that counts what the peer makes the server parse. Returns
    /// false when the connection is being closed for it; its later frames and messages are then
    /// dropped. By default every frame is welcome.
    func webSocketDidReceiveFrame(_ connection: WebSocketConnection) -> Bool
    /// A complete message arrived (fragments already joined, at most the configured size and
    /// fragments; a text message is valid UTF-8).
    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool)
    /// The socket is closed; no more calls for it follow. `error` is set when a client
    /// connection failed before or during the handshake.
    func webSocketDidClose(_ connection: WebSocketConnection, error: String?)
}

extension WebSocketDelegate {
    public func webSocketDidReceiveFrame(_ connection: WebSocketConnection) -> Bool { true }
}

/// Answers plain HTTP requests that reach the server. Called on the service thread only.
public protocol HTTPHandler: AnyObject {
    /// A complete request; respond now or later through `exchange.respond`.
    func handle(_ exchange: HTTPExchange)
}
