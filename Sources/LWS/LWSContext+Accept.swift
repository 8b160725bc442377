import CLibWebSockets

/// Every accepted TCP connection, from `LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED` to
/// `LWS_CALLBACK_WSI_DESTROY`, told to the delegate's `ConnectionFilter`. Service thread only.
///
/// A wsi keeps its pointer from accept to destroy, through the upgrade to a WebSocket, so it is
/// the key. lws 4.1 issues the accept callback a second time when a connection changes role
/// after its HTTP request (a `CONNECT`); that one is not a new connection.
extension LWSContext {
    /// One accepted connection: where from, and the response its first request gets when the
    /// filter refused it.
    struct AcceptedConnection {
        let peerAddress: String
        let refusal: UpgradeDecision
    }

    func connectionAccepted(_ wsi: OpaquePointer) {
        guard acceptedConnections[wsi] == nil, let filter = webSocketDelegate as? any ConnectionFilter else { return }
        let peer = clientAddress(of: wsi)
        acceptedConnections[wsi] = AcceptedConnection(peerAddress: peer, refusal: filter.shouldServe(connectionFrom: peer))
    }

    func connectionDestroyed(_ wsi: OpaquePointer) {
        guard let accepted = acceptedConnections.removeValue(forKey: wsi) else { return }
        (webSocketDelegate as? any ConnectionFilter)?.connectionEnded(from: accepted.peerAddress)
    }

    /// When the filter refused `wsi`'s connection, writes the refusal and returns -1 (lws then
    /// closes it); nil when the connection is served.
    func refuseIfNotServed(_ wsi: OpaquePointer) -> Int32? {
        guard case .refuse(let status, let contentType, let body) = acceptedConnections[wsi]?.refusal else { return nil }
        writeRefusal(status: status, contentType: contentType, body: body, on: wsi)
        return -1
    }
}
