import CLibWebSockets

extension LWSContext {
    /// The address a server connection is counted and reported under. Service thread only.
    ///
    /// The TCP peer's IP address, the same for `UpgradeRequest.clientAddress` and
    /// `WebSocketConnection.clientAddress`. Behind a reverse proxy it is the proxy's; the server
    /// resolves the real client from the forwarded header of the proxies it trusts.
    func clientAddress(of wsi: OpaquePointer) -> String {
        WSIHeaders.peerAddress(wsi)
    }
}
