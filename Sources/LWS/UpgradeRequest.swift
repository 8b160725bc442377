/// A WebSocket upgrade request as the server sees it before answering, for an `UpgradeFilter`.
public struct UpgradeRequest: Sendable {
    /// The request path, e.g. "/ws".
    public let path: String
    /// The `Origin` header, nil when absent (browsers always send one; most other clients none).
    public let origin: String?
    /// The address the client is counted under; see `LWSContext.clientAddress(of:)`.
    public let clientAddress: String

    public init(path: String, origin: String?, clientAddress: String) {
        self.path = path
        self.origin = origin
        self.clientAddress = clientAddress
    }
}
