import CallGateProtocol
import CoreMetrics
import Metrics
import Prometheus

/// The gateway's own metrics: sockets, frames, pushes, finished calls, ring latency, slow
/// consumers and refused connects, plus the store's (``StoreMetrics``), the webhook
/// dispatcher's (``WebhookMetrics``) and cluster mode's (``ClusterMetrics``), kept in one Prometheus
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
    /// The histogram of how long each op took to answer, by `op`.
    static let opSecondsName = "callgate_op_seconds"
    /// Buckets of `callgate_ring_latency_seconds` and `callgate_op_seconds`: both include a
    /// store commit, so from well under a millisecond (no fsync) to seconds (a stalled disk).
    static let ringLatencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500),
    ]

    /// The store writer's metrics, in the same registry.
    let store: StoreMetrics
    /// The webhook dispatcher's metrics, in the same registry.
    let webhooks: WebhookMetrics
    /// Cluster mode's metrics, in the same registry.
    let cluster: ClusterMetrics
    /// Makes every metric of this server, in its own registry (`factory.registry`).
    private let factory: PrometheusMetricsFactory
    private let socketsOpen: Meter
    private var socketsClosed: [String: CoreMetrics.Counter] = [:]
    private let frames: Frames
    private let draining: CoreMetrics.Gauge
    private let pushesDelivered: [EventName: CoreMetrics.Counter]
    private let callsFinished: [CallStatus: CoreMetrics.Counter]
    private let refusals: Refusals
    private let ringLatency: CoreMetrics.Timer
    private let opLatency: [Op: CoreMetrics.Timer]
    private let recoveries: [Bool: CoreMetrics.Counter]
    private let replayedPushes: CoreMetrics.Counter

    /// The frames the sockets carried, and those dropped for a full outbound queue.
    private struct Frames {
        let received: CoreMetrics.Counter
        let sent: CoreMetrics.Counter
        let queueDrops: CoreMetrics.Counter
    }

    /// What the gateway refused: requests answered with an error by code, connects by reason.
    private struct Refusals {
        let errorReplies: [ErrorCode: CoreMetrics.Counter]
        let authFailures: [AuthFailureReason: CoreMetrics.Counter]
    }

    /// Registers every metric in `registry`, which should be this server's alone. Labelled
    /// series with a known set of values start at 0, so a rate over them works from the start.
    init(registry: PrometheusCollectorRegistry) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["callgate_ring_latency_seconds"] = Self.ringLatencyBuckets
        factory.durationHistogramBuckets[Self.opSecondsName] = Self.ringLatencyBuckets
        factory.durationHistogramBuckets[StoreMetrics.writeSecondsName] = StoreMetrics.writeBuckets
        factory.valueHistogramBuckets[StoreMetrics.batchSizeName] = StoreMetrics.batchSizeBuckets
        factory.durationHistogramBuckets[WebhookMetrics.attemptSecondsName] = WebhookMetrics.attemptBuckets
        self.factory = factory
        store = StoreMetrics(factory: factory)
        webhooks = WebhookMetrics(factory: factory)
        cluster = ClusterMetrics(factory: factory)
        socketsOpen = Meter(label: "callgate_sockets_open", factory: factory)
        frames = Frames(
            received: CoreMetrics.Counter(label: "callgate_frames_received_total", factory: factory),
            sent: CoreMetrics.Counter(label: "callgate_frames_sent_total", factory: factory),
            queueDrops: CoreMetrics.Counter(label: "callgate_outbound_queue_drops_total", factory: factory))
        draining = CoreMetrics.Gauge(label: "callgate_draining", factory: factory)
        draining.record(0)
        pushesDelivered = Dictionary(uniqueKeysWithValues: EventName.allCases.map { event in
            (event, CoreMetrics.Counter(label: "callgate_pushes_delivered_total", dimensions: [("event", event.rawValue)], factory: factory))
        })
        callsFinished = Dictionary(uniqueKeysWithValues: CallStatus.allCases.filter(\.isTerminal).map { status in
            (status, CoreMetrics.Counter(label: "callgate_calls_finished_total", dimensions: [("status", status.rawValue)], factory: factory))
        })
        ringLatency = CoreMetrics.Timer(label: "callgate_ring_latency_seconds", factory: factory)
        opLatency = Dictionary(uniqueKeysWithValues: Op.allCases.map { op in
            (op, CoreMetrics.Timer(label: Self.opSecondsName, dimensions: [("op", op.rawValue)], factory: factory))
        })
        recoveries = Dictionary(uniqueKeysWithValues: [true, false].map { recovered in
            (recovered, CoreMetrics.Counter(
                label: "callgate_recoveries_total", dimensions: [("result", recovered ? "recovered" : "failed")],
                factory: factory))
        })
        replayedPushes = CoreMetrics.Counter(label: "callgate_replayed_pushes_total", factory: factory)
        refusals = Refusals(
            errorReplies: Dictionary(uniqueKeysWithValues: ErrorCode.allCases.map { code in
                (code, CoreMetrics.Counter(label: "callgate_error_replies_total", dimensions: [("code", code.rawValue)], factory: factory))
            }),
            authFailures: Dictionary(uniqueKeysWithValues: AuthFailureReason.allCases.map { reason in
                (reason, CoreMetrics.Counter(label: "callgate_auth_failures_total", dimensions: [("reason", reason.rawValue)], factory: factory))
            }))
        for label in CloseCodeLabel.common {
            socketsClosed[label] = closedCounter(label)
        }
    }

    /// The node began draining (`callgate_draining` 1 from now on).
    func drainBegan() {
        draining.record(1)
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
        frames.received.increment()
    }

    /// `count` frames were written to sockets or queued on them.
    func framesSent(_ count: Int) {
        frames.sent.increment(by: count)
    }

    /// `count` frames were lost to a full outbound queue (the socket is closed with 4008).
    func framesDropped(_ count: Int) {
        frames.queueDrops.increment(by: count)
    }

    /// A push of `event` went to `count` sockets: one per recipient, added at once.
    func pushesDelivered(_ event: EventName, count: Int) {
        pushesDelivered[event]?.increment(by: count)
    }

    /// A `connect` asked to recover: it did (and `missed` pushes are replayed), or it did not.
    func recovered(_ recovered: Bool, missed: Int) {
        recoveries[recovered]?.increment()
        replayedPushes.increment(by: missed)
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

    /// A request of `op` was answered `latency` after this node took it up (the reply released
    /// to its socket, or to the node that forwarded it, once the store commit it waits for is in).
    func answered(_ op: Op, after latency: Duration) {
        opLatency[op]?.record(duration: latency)
    }

    /// A request was answered with an error.
    func replied(error code: ErrorCode) {
        refusals.errorReplies[code]?.increment()
    }

    /// A socket failed to authenticate.
    func authFailed(_ reason: AuthFailureReason) {
        refusals.authFailures[reason]?.increment()
    }

    /// Every metric in the Prometheus text format, each with its `# HELP` and `# TYPE`, then
    /// the process metrics and `callgate_build_info`. Any thread.
    func exposition() -> [UInt8] {
        MetricHelp.annotate(factory.registry.emitToBuffer()) + Array(ProcessMetrics.exposition().utf8)
    }

    private func closedCounter(_ code: String) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: "callgate_sockets_closed_total", dimensions: [("code", code)], factory: factory)
    }
}

/// What the call log writer reports: how long each committed batch took, how many writes it
/// held, and how many attempts failed.
///
/// Made by ``GatewayMetrics`` with its factory; used on the writer thread. Sendable: its
/// metrics are atomics and locked histograms.
final class StoreMetrics: Sendable {
    /// The name of the commit-time histogram.
    static let writeSecondsName = "callgate_store_write_seconds"
    /// The name of the batch-size histogram.
    static let batchSizeName = "callgate_store_batch_size"
    /// Commit times from an unsynced commit (tens of microseconds) to a disk in trouble (seconds).
    static let writeBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
    ]
    /// Writes per batch: one at low load, hundreds when group commit gathers many calls.
    static let batchSizeBuckets: [Double] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000]

    private let writeSeconds: CoreMetrics.Timer
    private let batchSize: Recorder
    private let failures: CoreMetrics.Counter
    private let deadLetters: CoreMetrics.Counter
    private let queuedWrites: CoreMetrics.Gauge
    private let heldOutput: CoreMetrics.Gauge

    /// Registers the store metrics through `factory`, whose buckets for ``writeSecondsName``
    /// and ``batchSizeName`` should be set.
    init(factory: PrometheusMetricsFactory) {
        writeSeconds = CoreMetrics.Timer(label: Self.writeSecondsName, factory: factory)
        batchSize = Recorder(label: Self.batchSizeName, aggregate: true, factory: factory)
        failures = CoreMetrics.Counter(label: "callgate_store_write_failures_total", factory: factory)
        deadLetters = CoreMetrics.Counter(label: "callgate_store_dead_letters_total", factory: factory)
        queuedWrites = CoreMetrics.Gauge(label: "callgate_store_queued_writes", factory: factory)
        heldOutput = CoreMetrics.Gauge(label: "callgate_held_output", factory: factory)
        queuedWrites.record(0)
        heldOutput.record(0)
    }

    /// How far the store is behind, read at each scrape (service thread): writes waiting for
    /// it, and replies and pushes waiting for their writes to be durable.
    func backlog(queuedWrites queued: Int, heldOutput held: Int) {
        queuedWrites.record(queued)
        heldOutput.record(held)
    }

    /// A batch of `writes` writes committed in `duration`.
    func committed(writes: Int, in duration: Duration) {
        writeSeconds.record(duration: duration)
        batchSize.record(writes)
    }

    /// An attempt to commit a batch failed (it is retried, or its bad writes set aside).
    func writeFailed() {
        failures.increment()
    }

    /// A write the store refused for good was set aside in the dead-letter file.
    func deadLettered() {
        deadLetters.increment()
    }
}

/// The `code` label of `callgate_sockets_closed_total`: how a socket ended, as a close code.
///
/// Codes the gateway closes with are a small set it chooses, so they are used as they are. A
/// peer may send any code, so only the standard ones (1000 to 1015) are kept and the rest
/// become `other`: a client cannot make the series grow without bound. Pure; any thread.
enum CloseCodeLabel {
    /// The labels listed (at 0) before any socket closed that way.
    static let common = ["1000", "1001", "1005", "1006", "1009", "1012", "4001", "4008"]

    /// The label for a socket that this side closed with `local`, or whose peer sent `peer`
    /// (`peerSentClose` with no code: 1005); 1006, as RFC 6455 has it, when no close frame was
    /// exchanged at all (the connection dropped).
    static func label(local: UInt16?, peer: UInt16?, peerSentClose: Bool) -> String {
        if let local {
            return String(local)
        }
        if let peer {
            return (1000...1015).contains(peer) ? String(peer) : "other"
        }
        return peerSentClose ? "1005" : "1006"
    }
}

/// Why a socket failed to authenticate: the `reason` label of `callgate_auth_failures_total`.
enum AuthFailureReason: String, CaseIterable {
    /// The token is not a well-formed JWT with the required claims.
    case malformed
    /// The token names an algorithm the gateway does not accept, or not its key's.
    case wrongAlgorithm = "wrong_algorithm"
    /// The token's `kid` names no key the gateway holds.
    case unknownKey = "unknown_key"
    /// The token has no `kid`, and several keys use its algorithm.
    case missingKeyID = "missing_key_id"
    /// The signature does not match the gateway's secret.
    case badSignature = "bad_signature"
    /// The token has expired.
    case expired
    /// `nbf` or `iat` is in the future.
    case notYetValid = "not_yet_valid"
    /// `iss` is not the configured issuer.
    case wrongIssuer = "wrong_issuer"
    /// `aud` does not name the configured audience.
    case wrongAudience = "wrong_audience"
    /// `sub` is empty.
    case missingSubject = "missing_subject"
    /// `sub` is not a valid uid.
    case invalidSubject = "invalid_subject"
    /// `name` is not a valid name.
    case invalidName = "invalid_name"
    /// `avatar` is not a valid picture URL.
    case invalidAvatar = "invalid_avatar"
    /// A call token was sent to `connect`.
    case wrongKind = "wrong_kind"
    /// No `connect` succeeded before the deadline; the socket was closed with 4001.
    case connectTimeout = "connect_timeout"
    /// A connected socket's token expired without a `refreshToken`; it was closed with 4003.
    case tokenExpired = "token_expired"

    /// The reason for a token `connect` refused; nil for `invalidLifetime`, which only minting
    /// reports.
    init?(_ error: TokenError) {
        switch error {
        case .malformed: self = .malformed
        case .wrongAlgorithm: self = .wrongAlgorithm
        case .unknownKey: self = .unknownKey
        case .missingKeyID: self = .missingKeyID
        case .badSignature: self = .badSignature
        case .expired: self = .expired
        case .notYetValid: self = .notYetValid
        case .wrongIssuer: self = .wrongIssuer
        case .wrongAudience: self = .wrongAudience
        case .missingSubject: self = .missingSubject
        case .invalidSubject: self = .invalidSubject
        case .invalidName: self = .invalidName
        case .invalidAvatar: self = .invalidAvatar
        case .wrongKind: self = .wrongKind
        case .invalidLifetime: return nil
        }
    }
}
