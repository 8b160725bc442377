/// What the layer above learns about its WebSockets. Called on the service thread only.
public protocol WebSocketDelegate: AnyObject {
    /// A socket is open (server: upgrade accepted; client: handshake done).
    func webSocketDidOpen(_ connection: WebSocketConnection)
    /// A complete message arrived (fragments already joined, at most the configured size).
    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool)
    /// The socket is closed; no more calls for it follow. `error` is set when a client
    /// connection failed before or during the handshake.
    func webSocketDidClose(_ connection: WebSocketConnection, error: String?)
}
