/// Decides, before the 101 goes out, whether a WebSocket upgrade may proceed.
///
/// A server context asks its `WebSocketDelegate` when that delegate also conforms to this
/// protocol; otherwise every upgrade on the configured path proceeds. Called on the service
/// thread only. When it answers `.accept`, `webSocketDidOpen` for that socket follows within the
/// same lws callback (or nothing, if the handshake fails), so a count checked here and
/// incremented in `webSocketDidOpen` cannot be overtaken by another upgrade.
public protocol UpgradeFilter: AnyObject {
    func shouldUpgrade(_ request: UpgradeRequest) -> UpgradeDecision
}
