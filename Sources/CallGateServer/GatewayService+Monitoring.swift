import CallGateCore
import Foundation
import LWS

/// `GET /metrics` and `GET /readyz`, without authentication: keep them off the public
/// internet (the reverse proxy should not forward them).
///
/// Both answer past the output gate and without touching the store: they report on the gateway
/// rather than show call state to a client, and they must answer at once while the store is
/// stuck, which is when the gate stays shut and they matter most. Service thread.
extension GatewayService {
    /// Answers `endpoint`: GET only (405 otherwise). Readiness is what the writer last saw (its
    /// writes, retries, and its probe every 10 s while idle) and whether the store is behind,
    /// so a flood of probes costs no store work.
    func handleMonitoring(_ endpoint: MonitoringEndpoint, method: HTTPMethod, exchange: HTTPExchange) {
        guard method == .get else {
            write(.error(405, .methodNotAllowed, "method not allowed here; allowed: GET", headers: [("Allow", "GET")]), to: exchange)
            return
        }
        switch endpoint {
        case .metrics:
            write(HTTPResponse(status: 200, contentType: GatewayMetrics.contentType, body: metrics.exposition()), to: exchange)
        case .readiness:
            write(readiness(), to: exchange)
        }
    }

    private func readiness() -> HTTPResponse {
        let health = writer.health
        if let since = health.failingSince {
            let seconds = (ContinuousClock.now - since).components.seconds
            return .error(
                503, .notReady,
                "the call log store does not accept writes (for \(seconds) s: \(health.lastError ?? "unknown error"))")
        }
        if let backlog = storeBacklog() {
            return .error(503, .notReady, backlog)
        }
        return .json(200, ["status": "ready"])
    }
}
