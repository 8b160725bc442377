/// Decides, as each TCP connection is accepted, whether its requests will be served: the hook
/// for caps on connections per client address and per process that plain HTTP, slow or idle
/// connections count against as much as WebSockets.
///
/// A server context asks its `WebSocketDelegate` when that delegate also conforms to this
/// protocol. Called on the service thread only. Every connection `shouldServe` was asked about
/// gets exactly one `connectionEnded`, refused or not, when lws lets go of it.
public protocol ConnectionFilter: AnyObject {
    /// A TCP connection from `peerAddress` was accepted. `.accept` serves it; `.refuse` answers
    /// its first request (HTTP or upgrade) with that response and closes it.
    func shouldServe(connectionFrom peerAddress: String) -> UpgradeDecision
    /// A connection accepted from `peerAddress` has closed.
    func connectionEnded(from peerAddress: String)
}
