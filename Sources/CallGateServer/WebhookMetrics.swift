import CoreMetrics
import Metrics
import Prometheus

/// The webhook dispatcher's metrics, in the server's registry: deliveries by outcome, attempts
/// by result, the queue depth and the age of the oldest pending delivery. Any thread (the
/// dispatcher's and its HTTP tasks').
final class WebhookMetrics: Sendable {
    /// What an attempt got, as the `result` label says it.
    enum AttemptResult: String, CaseIterable {
        /// A 2xx answer.
        case success
        /// 410 Gone: the endpoint is disabled.
        case gone
        /// Another HTTP status: retried.
        case httpError = "http_error"
        /// No answer within the timeout: retried.
        case timeout
        /// No answer at all (refused, reset, TLS, DNS): retried.
        case transportError = "transport_error"
    }

    private let delivered: CoreMetrics.Counter
    private let failed: CoreMetrics.Counter
    private let attempts: [AttemptResult: CoreMetrics.Counter]
    private let queueDepth: CoreMetrics.Gauge
    private let oldestPending: CoreMetrics.Gauge
    private let storeErrors: CoreMetrics.Counter

    /// Registers the metrics through `factory`.
    init(factory: PrometheusMetricsFactory) {
        delivered = CoreMetrics.Counter(
            label: "callgate_webhook_deliveries_total", dimensions: [("outcome", "delivered")], factory: factory)
        failed = CoreMetrics.Counter(
            label: "callgate_webhook_deliveries_total", dimensions: [("outcome", "failed")], factory: factory)
        attempts = Dictionary(uniqueKeysWithValues: AttemptResult.allCases.map { result in
            (result, CoreMetrics.Counter(
                label: "callgate_webhook_attempts_total", dimensions: [("result", result.rawValue)], factory: factory))
        })
        queueDepth = CoreMetrics.Gauge(label: "callgate_webhook_queue_depth", factory: factory)
        oldestPending = CoreMetrics.Gauge(label: "callgate_webhook_oldest_pending_seconds", factory: factory)
        storeErrors = CoreMetrics.Counter(label: "callgate_webhook_store_errors_total", factory: factory)
        queueDepth.record(0)
        oldestPending.record(0)
    }

    /// An attempt ended with `result`; `finished` when it delivered the message or gave it up.
    func attempted(_ result: AttemptResult, delivered wasDelivered: Bool, failed wasFailed: Bool) {
        attempts[result]?.increment()
        if wasDelivered { delivered.increment() }
        if wasFailed { failed.increment() }
    }

    /// The outbox could not be read or written; the dispatcher backs off.
    func storeFailed() {
        storeErrors.increment()
    }

    /// The outbox holds `pending` deliveries, the oldest waiting `oldestSeconds`.
    func backlog(pending: Int, oldestSeconds: Double) {
        queueDepth.record(pending)
        oldestPending.record(oldestSeconds)
    }
}
