import CallGateCore
import CoreMetrics
import Foundation
import Metrics
import Prometheus

/// The webhook dispatcher's metrics, in the server's registry: deliveries by outcome, attempts
/// by result, failures by reason, the queue depth and the age of the oldest pending delivery,
/// and per endpoint (label `endpoint`, at most 32 of them) its backlog, its oldest pending
/// delivery's age and its breaker's state. Any thread (the dispatcher's and its HTTP tasks').
final class WebhookMetrics: @unchecked Sendable {
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
        /// Not attempted: the host resolves only inside the network (`WebhookAddressRules`).
        case refused
    }

    /// One endpoint's gauges.
    private struct EndpointGauges {
        let backlog: CoreMetrics.Gauge
        let oldest: CoreMetrics.Gauge
        let breaker: CoreMetrics.Gauge
    }

    private let delivered: CoreMetrics.Counter
    private let failed: CoreMetrics.Counter
    private let attempts: [AttemptResult: CoreMetrics.Counter]
    /// How long each attempt took, answered or not.
    private let attemptTime: CoreMetrics.Timer
    private let queueDepth: CoreMetrics.Gauge
    private let oldestPending: CoreMetrics.Gauge
    private let storeErrors: CoreMetrics.Counter
    private let failures: [WebhookFailureReason: CoreMetrics.Counter]
    private let factory: PrometheusMetricsFactory
    /// Guards `endpoints`.
    private let lock = NSLock()
    private var endpoints: [String: EndpointGauges] = [:]

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
        attemptTime = CoreMetrics.Timer(label: Self.attemptSecondsName, factory: factory)
        queueDepth = CoreMetrics.Gauge(label: "callgate_webhook_queue_depth", factory: factory)
        oldestPending = CoreMetrics.Gauge(label: "callgate_webhook_oldest_pending_seconds", factory: factory)
        storeErrors = CoreMetrics.Counter(label: "callgate_webhook_store_errors_total", factory: factory)
        failures = Dictionary(uniqueKeysWithValues: WebhookFailureReason.allCases.map { reason in
            (reason, CoreMetrics.Counter(
                label: "callgate_webhook_failures_total", dimensions: [("reason", reason.rawValue)], factory: factory))
        })
        self.factory = factory
        queueDepth.record(0)
        oldestPending.record(0)
    }

    /// The histogram of attempt durations, and its buckets (seconds): a receiver answers in
    /// milliseconds, a slow one takes up to the attempt timeout (10 s by default).
    static let attemptSecondsName = "callgate_webhook_attempt_seconds"
    static let attemptBuckets: [Duration] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30].map { .milliseconds(Int($0 * 1000)) }

    /// An attempt that took `duration` ended with `result`, leaving its delivery delivered,
    /// failed for `reason`, or pending.
    func attempted(
        _ result: AttemptResult, after duration: Duration, delivered wasDelivered: Bool, failed reason: WebhookFailureReason?
    ) {
        attempts[result]?.increment()
        attemptTime.record(duration: duration)
        if wasDelivered { delivered.increment() }
        if let reason { gaveUp(1, reason) }
    }

    /// `count` deliveries were given up for `reason`.
    func gaveUp(_ count: Int, _ reason: WebhookFailureReason) {
        guard count > 0 else { return }
        failed.increment(by: Int64(count))
        failures[reason]?.increment(by: Int64(count))
    }

    /// The outbox could not be read or written; the dispatcher backs off.
    func storeFailed() {
        storeErrors.increment()
    }

    /// The outbox holds `backlogs` (per endpoint) at `now` (Unix ms), for the endpoints served
    /// (`served`): the totals and each served endpoint's gauges; those of endpoints no longer
    /// served are removed.
    func backlogs(_ backlogs: [String: WebhookBacklog], served: Set<String>, at now: Int64) {
        func age(_ oldest: Int64?) -> Double { oldest.map { max(0, Double(now - $0) / 1000) } ?? 0 }
        queueDepth.record(backlogs.values.reduce(0) { $0 + $1.pending })
        oldestPending.record(age(backlogs.values.compactMap(\.oldestPendingAt).min()))
        forget(keeping: served)
        for endpoint in served {
            let gauges = self.gauges(of: endpoint)
            gauges.backlog.record(backlogs[endpoint]?.pending ?? 0)
            gauges.oldest.record(age(backlogs[endpoint]?.oldestPendingAt))
        }
    }

    /// `endpoint`'s breaker is in state `value` (0 closed, 1 half-open, 2 open).
    func breaker(_ endpoint: String, _ value: Int) {
        gauges(of: endpoint).breaker.record(value)
    }

    /// Removes the gauges of every endpoint but `served`.
    func forget(keeping served: Set<String>) {
        lock.lock()
        let gone = endpoints.filter { !served.contains($0.key) }
        for id in gone.keys {
            endpoints[id] = nil
        }
        lock.unlock()
        for gauges in gone.values {
            gauges.backlog.destroy()
            gauges.oldest.destroy()
            gauges.breaker.destroy()
        }
    }

    private func gauges(of endpoint: String) -> EndpointGauges {
        lock.lock()
        defer { lock.unlock() }
        if let gauges = endpoints[endpoint] { return gauges }
        let labels = [("endpoint", endpoint)]
        let gauges = EndpointGauges(
            backlog: CoreMetrics.Gauge(label: "callgate_webhook_endpoint_backlog", dimensions: labels, factory: factory),
            oldest: CoreMetrics.Gauge(
                label: "callgate_webhook_endpoint_oldest_pending_seconds", dimensions: labels, factory: factory),
            breaker: CoreMetrics.Gauge(label: "callgate_webhook_endpoint_breaker", dimensions: labels, factory: factory))
        gauges.breaker.record(0)
        endpoints[endpoint] = gauges
        return gauges
    }
}
