/// Which connections and WebSocket upgrades the gateway serves: the caps on connections per
/// process and per client address, and the Origin of upgrades. Pure; the gateway keeps one on
/// its service thread and tells it when connections and sockets open and close.
///
/// Every TCP connection counts in the process's total from accept to close, HTTP or WebSocket,
/// idle or half-sent: each holds a file descriptor. Per address, a connection counts under its
/// TCP peer's address from accept, except one from a trusted proxy, which carries many clients'
/// requests: that one counts per address only once it is a WebSocket, under the client address
/// the proxy forwarded.
struct AdmissionControl {
    let origins: OriginPolicy
    let trustedProxies: TrustedProxies
    private(set) var counts: ConnectionCounts

    init(configuration: ServerConfiguration) {
        origins = OriginPolicy(allowedOrigins: configuration.allowedOrigins)
        trustedProxies = configuration.trustedProxies
        counts = ConnectionCounts(
            maxTotal: configuration.maxConnections, maxPerAddress: configuration.maxConnectionsPerAddress)
    }

    /// Counts a TCP connection accepted from `peer` and returns the cap it passed, nil when it
    /// is served. A refused connection stays counted until `ended`: it holds its descriptor
    /// until its first request is answered.
    mutating func accepted(peer: String) -> LimitEvent? {
        let address = addressCounted(forPeer: peer)
        let limit = counts.limitReached(inTotal: true, address: address)
        counts.add(inTotal: true, address: address)
        return limit
    }

    /// Forgets a connection `accepted(peer:)` counted.
    mutating func ended(peer: String) {
        counts.remove(inTotal: true, address: addressCounted(forPeer: peer))
    }

    /// Why a WebSocket upgrade from `peer` on behalf of `clientAddress` is refused, nil when it
    /// may proceed: an Origin not allowed, or (through a trusted proxy) a client address at its
    /// cap. The connection itself passed its caps when it was accepted.
    func upgradeRefusal(origin: String?, peer: String, clientAddress: String) -> LimitEvent? {
        guard origins.allows(origin) else { return .originRefused }
        guard addressCounted(forPeer: peer) == nil else { return nil }
        return counts.limitReached(inTotal: false, address: clientAddress)
    }

    /// Counts a WebSocket from `peer` on behalf of `clientAddress` under that address when it
    /// came through a trusted proxy; returns the address it was counted under, for
    /// `socketClosed`.
    mutating func socketOpened(peer: String, clientAddress: String) -> String? {
        guard addressCounted(forPeer: peer) == nil else { return nil }
        counts.add(inTotal: false, address: clientAddress)
        return clientAddress
    }

    /// Forgets a socket `socketOpened` counted under `address`.
    mutating func socketClosed(countedUnder address: String) {
        counts.remove(inTotal: false, address: address)
    }

    /// The address a connection from `peer` counts under from accept: the peer's, or nil for a
    /// trusted proxy.
    private func addressCounted(forPeer peer: String) -> String? {
        trustedProxies.trusts(peer: peer) ? nil : peer
    }
}
