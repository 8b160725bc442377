import CallGateProtocol
import LWS

/// One client-side libwebsockets context and its service thread, shared by many `CallGateClient`s.
///
/// A test, the CLI or the load generator makes one loop and opens any number of sockets on it.
public final class ClientLoop: Sendable {
    let context: LWSContext

    /// Starts the service thread. With `tls`, its sockets may use TLS (`CallGateClient.open(tls:)`),
    /// trusting the system's CA certificates plus those in `tls.caFile`, if given (a private CA,
    /// or a self-signed certificate in tests); without it, ws:// only, and OpenSSL is not set up.
    public init(tls: ClientTLSTrust? = nil) throws {
        var configuration = ContextConfiguration(listen: nil, protocolName: WireEndpoint.subprotocol)
        configuration.clientTLS = tls
        context = LWSContext(configuration: configuration)
        try context.start(webSocketDelegate: ClientSocketRouter())
    }

    /// Closes every socket of this loop and ends its thread. Not from inside a client callback.
    public func stop() {
        context.stop()
    }
}

/// Hands socket events to the `CallGateClient` attached to each connection. Service thread only.
final class ClientSocketRouter: WebSocketDelegate {
    func webSocketDidOpen(_ connection: WebSocketConnection) {
        (connection.attachment as? CallGateClient)?.socketOpened()
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        (connection.attachment as? CallGateClient)?.received(message)
    }

    func webSocketDidClose(_ connection: WebSocketConnection, error: String?) {
        (connection.attachment as? CallGateClient)?.socketClosed(
            code: CloseCode.seen(connection.peerCloseCode, reason: connection.peerCloseReason),
            reason: connection.peerCloseReason, error: error)
        connection.attachment = nil
    }
}
