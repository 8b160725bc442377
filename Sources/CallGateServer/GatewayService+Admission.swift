import CallGateCore
import Logging
import LWS

/// Which connections are served and which WebSocket upgrades proceed, and the logs of the
/// limits enforced. Service thread only.
extension GatewayService: UpgradeFilter, ConnectionFilter {
    /// Counts every accepted TCP connection; one that passes the process's cap (503) or its
    /// address's (429) gets that answer to its first request.
    func shouldServe(connectionFrom peerAddress: String) -> UpgradeDecision {
        context.assertOnServiceThread()
        guard let limit = admission.accepted(peer: peerAddress) else { return .accept }
        noteLimit(limit, metadata: ["address": "\(peerAddress)"])
        return limit.refusal.upgradeRefusal
    }

    func connectionEnded(from peerAddress: String) {
        context.assertOnServiceThread()
        admission.ended(peer: peerAddress)
    }

    /// Refuses an upgrade from an Origin not allowed (403), through a trusted proxy for a
    /// client address at its cap (429; such sockets are counted in `webSocketDidOpen`), or to a
    /// cluster node that has not joined or is suspended (503: the client should try another).
    func shouldUpgrade(_ request: UpgradeRequest) -> UpgradeDecision {
        context.assertOnServiceThread()
        if let reason = clusterUnreadiness() {
            return HTTPResponse.error(503, .notReady, reason).upgradeRefusal
        }
        let address = configuration.trustedProxies.clientAddress(
            peer: request.clientAddress, forwardedFor: request.forwardedFor)
        guard let limit = admission.upgradeRefusal(origin: request.origin, peer: request.clientAddress, clientAddress: address)
        else { return .accept }
        noteLimit(limit, metadata: ["address": "\(address)", "origin": "\(request.origin ?? "-")"])
        return limit.refusal.upgradeRefusal
    }

    /// Logs that `event` happened, once per burst: the first at once, the rest counted into one
    /// line per 10 s.
    func noteLimit(_ event: LimitEvent, metadata: Logger.Metadata) {
        guard let count = limitLogs[event, default: BurstLog(periodMillis: 10_000)].record(now: clock.monotonicMillis()) else {
            return
        }
        var metadata = metadata
        metadata["count"] = "\(count)"
        logger.warning("\(event.logMessage)", metadata: metadata)
    }
}

extension HTTPResponse {
    /// This response as the refusal of a WebSocket upgrade, which lws writes in place of the 101.
    var upgradeRefusal: UpgradeDecision {
        .refuse(status: status, contentType: contentType ?? Self.jsonContentType, body: body)
    }
}
