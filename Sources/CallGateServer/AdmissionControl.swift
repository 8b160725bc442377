/// Decides which WebSocket upgrades may proceed: the Origin first, then the process's and the
/// address's socket caps. Pure; the gateway keeps one on its service thread and tells it when
/// sockets open and close.
struct AdmissionControl {
    let origins: OriginPolicy
    var counts: ConnectionCounts

    init(configuration: ServerConfiguration) {
        origins = OriginPolicy(allowedOrigins: configuration.allowedOrigins)
        counts = ConnectionCounts(
            maxTotal: configuration.maxConnections, maxPerAddress: configuration.maxConnectionsPerAddress)
    }

    /// Why an upgrade with this Origin from this client address is refused, nil when it may proceed.
    func refusal(origin: String?, clientAddress: String) -> LimitEvent? {
        guard origins.allows(origin) else { return .originRefused }
        return counts.limitReached(by: clientAddress)
    }
}
