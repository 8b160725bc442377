import CallGateProtocol
import CoreMetrics
import Metrics
import Prometheus

/// The gateway's own metrics: sockets, frames, pushes, finished calls, ring latency, slow
/// consumers and refused connects, plus the store's (``StoreMetrics``), kept in one Prometheus
/// registry per server and rendered for `GET /metrics`.
///
/// The metrics are swift-metrics objects made by a `PrometheusMetricsFactory` over this server's
/// own registry rather than the global `MetricsSystem`, which can be bootstrapped once per
/// process: several gateways in one process (the tests) each count for themselves.
///
/// Service thread only, but for ``store`` (the writer thread) and ``exposition()`` (any thread):
/// the series made on first use (close codes nobody used before) live in a plain dictionary.
/// Every update is an atomic add (a short lock for a histogram); nothing here allocates once a
/// series exists.
final class GatewayMetrics {
    /// The media type of ``exposition()``: the Prometheus text format 0.0.4.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    /// Buckets of `callgate_ring_latency_seconds`: it includes a store commit, so from well
    /// under a millisecond (no fsync) to seconds (a stalled disk).
    static let ringLatencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500),
    ]

    /// The registry every metric of this server is kept in.
    let registry: PrometheusCollectorRegistry
    /// The store writer's metrics, in the same registry.
    let store: StoreMetrics
    private let factory: PrometheusMetricsFactory
    private let socketsOpen: Meter
    private var socketsClosed: [String: CoreMetrics.Counter] = [:]
    private let framesReceived: CoreMetrics.Counter
    private let framesSent: CoreMetrics.Counter
    private let queueDrops: CoreMetrics.Counter
    private let pushesDelivered: [EventName: CoreMetrics.Counter]
    private let callsFinished: [CallStatus: CoreMetrics.Counter]
    private let authFailures: [AuthFailureReason: CoreMetrics.Counter]
    private let ringLatency: CoreMetrics.Timer

    /// Registers every metric in `registry`, which should be this server's alone. Labelled
    /// series with a known set of values start at 0, so a rate over them works from the start.
    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["callgate_ring_latency_seconds"] = Self.ringLatencyBuckets
        factory.durationHistogramBuckets[StoreMetrics.writeSecondsName] = StoreMetrics.writeBuckets
        factory.valueHistogramBuckets[StoreMetrics.batchSizeName] = StoreMetrics.batchSizeBuckets
        self.factory = factory
        store = StoreMetrics(factory: factory)
        socketsOpen = Meter(label: "callgate_sockets_open", factory: factory)
        framesReceived = CoreMetrics.Counter(label: "callgate_frames_received_total", factory: factory)
        framesSent = CoreMetrics.Counter(label: "callgate_frames_sent_total", factory: factory)
        queueDrops = CoreMetrics.Counter(label: "callgate_outbound_queue_drops_total", factory: factory)
        pushesDelivered = Dictionary(uniqueKeysWithValues: EventName.allCases.map { event in
            (event, CoreMetrics.Counter(label: "callgate_pushes_delivered_total", dimensions: [("event", event.rawValue)], factory: factory))
        })
        callsFinished = Dictionary(uniqueKeysWithValues: CallStatus.allCases.filter(\.isTerminal).map { status in
            (status, CoreMetrics.Counter(label: "callgate_calls_finished_total", dimensions: [("status", status.rawValue)], factory: factory))
        })
        authFailures = Dictionary(uniqueKeysWithValues: AuthFailureReason.allCases.map { reason in
            (reason, CoreMetrics.Counter(label: "callgate_auth_failures_total", dimensions: [("reason", reason.rawValue)], factory: factory))
        })
        ringLatency = CoreMetrics.Timer(label: "callgate_ring_latency_seconds", factory: factory)
        for label in CloseCodeLabel.common {
            socketsClosed[label] = closedCounter(label)
        }
    }

    /// A WebSocket opened.
    func socketOpened() {
        socketsOpen.increment()
    }

    /// A WebSocket closed; `code` is its ``CloseCodeLabel``.
    func socketClosed(code: String) {
        socketsOpen.decrement()
        if let counter = socketsClosed[code] {
            counter.increment()
        } else {
            let counter = closedCounter(code)
            socketsClosed[code] = counter
            counter.increment()
        }
    }

    /// A whole message arrived on a socket.
    func frameReceived() {
        framesReceived.increment()
    }

    /// A frame was queued on a socket.
    func frameSent() {
        framesSent.increment()
    }

    /// `count` frames were lost to a full outbound queue (the socket is closed with 4008).
    func framesDropped(_ count: Int) {
        queueDrops.increment(by: count)
    }

    /// A push of `event` went to `count` sockets: one per recipient, added at once.
    func pushesDelivered(_ event: EventName, count: Int) {
        pushesDelivered[event]?.increment(by: count)
    }

    /// A rung call reached its final status.
    func callFinished(_ status: CallStatus) {
        callsFinished[status]?.increment()
    }

    /// The ring frames of an `initiateCall` were handed to the sockets `latency` after the
    /// gateway began handling it.
    func rang(after latency: Duration) {
        ringLatency.record(duration: latency)
    }

    /// A socket failed to authenticate.
    func authFailed(_ reason: AuthFailureReason) {
        authFailures[reason]?.increment()
    }

    /// Every metric in the Prometheus text format. Any thread.
    func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }

    private func closedCounter(_ code: String) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: "callgate_sockets_closed_total", dimensions: [("code", code)], factory: factory)
    }
}
