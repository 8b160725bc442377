/// What an `UpgradeFilter` answers to a WebSocket upgrade request.
public enum UpgradeDecision: Sendable, Equatable {
    /// The handshake goes on; the socket opens (`webSocketDidOpen`) unless the handshake fails.
    case accept
    /// The request gets this plain HTTP response instead of 101, and the connection closes.
    case refuse(status: Int, contentType: String, body: [UInt8])
}
