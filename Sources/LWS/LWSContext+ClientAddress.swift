import CLibWebSockets

extension LWSContext {
    /// The address a server connection is counted and reported under. Service thread only.
    ///
    /// For now the TCP peer's IP address. Behind a reverse proxy this is the proxy's address;
    /// resolving the real client from forwarded headers of trusted proxies belongs here, so that
    /// `UpgradeRequest.clientAddress` and `WebSocketConnection.clientAddress` stay one and the same.
    func clientAddress(of wsi: OpaquePointer) -> String {
        WSIHeaders.peerAddress(wsi)
    }
}
