import Foundation

/// Opens sockets to the gateway for a `CallGateConnection`. `WebSocketTransport` is the one apps
/// use; a test puts a scripted gateway in its place (proto/vectors).
public protocol CallGateTransport: Sendable {
    /// Opens a WebSocket to `url` speaking `subprotocol`, returning once the handshake is done;
    /// throws when the socket cannot be opened.
    func open(_ url: URL, subprotocol: String) async throws -> any TransportSocket
}

/// One open socket.
public protocol TransportSocket: Sendable {
    /// What the gateway sends, in order; `.closed` is the last event.
    var events: AsyncStream<TransportEvent> { get }
    /// Sends a text frame; throws when the socket is closed.
    func send(_ text: String) async throws
    /// Starts closing the socket normally with `code`; `.closed` follows in `events`.
    func close(code: UInt16, reason: String) async
}

/// What a socket hears.
public enum TransportEvent: Sendable, Equatable {
    /// A text frame.
    case text(String)
    /// The socket closed: the gateway's close code and reason, or no code when it ended without
    /// a close frame (a lost network, a dead peer).
    case closed(code: UInt16?, reason: String)
}
