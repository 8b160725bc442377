/// A WebSocket upgrade request as the server sees it before answering, for an `UpgradeFilter`.
/// Only `Upgrade: websocket` requests get this far; others get `foreignUpgradeRefusal`.
public struct UpgradeRequest: Sendable {
    /// The request path, e.g. "/ws".
    public let path: String
    /// The `Origin` header, nil when absent (browsers always send one; most other clients none).
    public let origin: String?
    /// The TCP peer's address; see `LWSContext.clientAddress(of:)`.
    public let clientAddress: String
    /// The `X-Forwarded-For` header, for a filter that trusts some proxies; nil when absent.
    public let forwardedFor: String?

    public init(path: String, origin: String?, clientAddress: String, forwardedFor: String? = nil) {
        self.path = path
        self.origin = origin
        self.clientAddress = clientAddress
        self.forwardedFor = forwardedFor
    }
}
