import CallGateCore
import Foundation
import LWS

/// `GET /metrics` and `GET /readyz`, without authentication: keep them off the public
/// internet (the reverse proxy should not forward them).
///
/// Both answer past the output gate: they report on the gateway rather than show call state
/// to a client, and they must answer while the store is stuck, which is when the gate stays
/// shut and they matter most. Service thread, but for the readiness probe's store write.
extension GatewayService {
    /// Answers `endpoint`: GET only (405 otherwise); metrics at once, readiness once the
    /// store's probe write on `storeReads` committed or failed.
    func handleMonitoring(_ endpoint: MonitoringEndpoint, method: HTTPMethod, exchange: HTTPExchange) {
        guard method == .get else {
            write(.error(405, .methodNotAllowed, "method not allowed here; allowed: GET", headers: [("Allow", "GET")]), to: exchange)
            return
        }
        switch endpoint {
        case .metrics:
            write(HTTPResponse(status: 200, contentType: GatewayMetrics.contentType, body: metrics.exposition()), to: exchange)
        case .readiness:
            let store = store
            let context = context
            let box = ServiceThreadBox(exchange)
            storeReads.async {
                let response: HTTPResponse = store.isWritable()
                    ? .json(200, ["status": "ready"])
                    : .error(503, .notReady, "the call log store does not accept writes")
                context.post { [self] in
                    write(response, to: box.value)
                }
            }
        }
    }
}
