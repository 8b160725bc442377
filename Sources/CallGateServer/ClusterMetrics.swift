import CallGateCluster
import CoreMetrics
import Prometheus

/// Cluster mode's metrics: membership, forwarded ops, takeovers, lapsed leases, fenced writes
/// and bus messages refused. Made by ``GatewayMetrics`` with its factory, in the same registry;
/// service thread only.
final class ClusterMetrics {
    private let clusterMember: CoreMetrics.Gauge
    private let forwardedOps: CoreMetrics.Counter
    private let unansweredForwards: CoreMetrics.Counter
    private let takenOver: CoreMetrics.Counter
    private let lapsedLeases: CoreMetrics.Counter
    private let fencedOut: CoreMetrics.Counter
    /// By reason: `BusSignature.Rejection`'s raw values, and `malformed`.
    private let busRejected: [String: CoreMetrics.Counter]

    init(factory: PrometheusMetricsFactory) {
        clusterMember = CoreMetrics.Gauge(label: "callgate_cluster_member", factory: factory)
        forwardedOps = CoreMetrics.Counter(label: "callgate_cluster_forwarded_ops_total", factory: factory)
        unansweredForwards = CoreMetrics.Counter(label: "callgate_cluster_unanswered_forwards_total", factory: factory)
        takenOver = CoreMetrics.Counter(label: "callgate_cluster_calls_taken_over_total", factory: factory)
        lapsedLeases = CoreMetrics.Counter(label: "callgate_cluster_leases_lapsed_total", factory: factory)
        fencedOut = CoreMetrics.Counter(label: "callgate_cluster_writes_fenced_total", factory: factory)
        busRejected = Dictionary(uniqueKeysWithValues: (BusSignature.Rejection.allCases.map(\.rawValue) + ["malformed"]).map {
            ($0, CoreMetrics.Counter(label: "callgate_cluster_bus_rejected_total", dimensions: [("reason", $0)], factory: factory))
        })
    }

    /// Whether this node is a live member (1) or joining or suspended (0).
    func clusterLive(_ live: Bool) {
        clusterMember.record(live ? 1 : 0)
    }

    /// An op went to the node that owns its call.
    func opForwarded() {
        forwardedOps.increment()
    }

    /// A forwarded op got `ERR_CALL_OWNER_UNREACHABLE` (its owner did not answer).
    func forwardFailed() {
        unansweredForwards.increment()
    }

    /// `count` open calls of a lapsed node became this node's.
    func callsTakenOver(_ count: Int) {
        takenOver.increment(by: count)
    }

    /// The leases of `count` devices of other nodes lapsed (no renewal came).
    func leasesLapsed(_ count: Int) {
        lapsedLeases.increment(by: count)
    }

    /// The store refused this node's writes of `count` calls that another node
    /// owns now (took over under a raised epoch); this node let them go.
    func callsFencedOut(_ count: Int) {
        fencedOut.increment(by: count)
    }

    /// A bus message, or a push read back from a user's stream, was dropped
    /// because its seal failed (`rejection`) or it did not parse (nil).
    func busMessageRejected(_ rejection: BusSignature.Rejection?) {
        busRejected[rejection?.rawValue ?? "malformed"]?.increment()
    }
}
