import LWS

/// Hands socket events to the `CallGateClient` attached to each connection. Service thread only.
final class ClientSocketRouter: WebSocketDelegate {
    func webSocketDidOpen(_ connection: WebSocketConnection) {
        (connection.attachment as? CallGateClient)?.socketOpened()
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        (connection.attachment as? CallGateClient)?.received(message)
    }

    func webSocketDidClose(_ connection: WebSocketConnection, error: String?) {
        (connection.attachment as? CallGateClient)?.socketClosed(code: connection.peerCloseCode, error: error)
        connection.attachment = nil
    }
}
