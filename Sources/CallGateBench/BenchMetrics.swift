import Histogram

/// The live measurements of a run. Confined to the bench loop's service thread: no locks.
final class BenchMetrics {
    private var histograms = [LatencyHistogram](repeating: LatencyHistogram(), count: Metric.allCases.count)
    var counts = BenchCounts()
    /// Drain: when the moves off the draining gateway happened.
    var moves = MoveTimeline()
    private(set) var errors: [String: Int] = [:]

    /// Records one latency of `metric`.
    func record(_ metric: Metric, nanoseconds: UInt64) {
        histograms[Self.slot(metric)].record(nanoseconds: nanoseconds)
    }

    /// Records the latency from `start` to `now` (both monotonic nanoseconds).
    func record(_ metric: Metric, from start: UInt64, to now: UInt64) {
        record(metric, nanoseconds: now > start ? now - start : 0)
    }

    /// Counts one error under `code`.
    func error(_ code: String) {
        errors[code, default: 0] += 1
    }

    /// Errors so far, all codes together.
    var errorTotal: Int { errors.values.reduce(0, +) }

    func histogram(_ metric: Metric) -> LatencyHistogram {
        histograms[Self.slot(metric)]
    }

    func snapshot() -> MetricsSnapshot {
        var byMetric: [Metric: LatencyHistogram] = [:]
        for metric in Metric.allCases { byMetric[metric] = histogram(metric) }
        return MetricsSnapshot(histograms: byMetric, counts: counts, errors: errors, moves: moves)
    }

    private static func slot(_ metric: Metric) -> Int {
        Metric.allCases.firstIndex(of: metric)!
    }
}

/// A latency the generator measures; the raw value is its name in the summary and the JSON.
public enum Metric: String, CaseIterable, Sendable, Codable {
    /// Socket opened until the `connect` reply (TCP + WebSocket handshake + token check).
    case connect
    /// The same for the first 1,000 sockets of the connect phase only.
    case connectFirst1000
    /// The same for the last 1,000: with a fixed number of handshakes in flight, its ratio to
    /// `connectFirst1000` is how much dearer a connect got as the server filled up.
    case connectLast1000
    /// A churned socket's reconnect: opened until the `connect` reply.
    case reconnect
    /// `initiateCall` sent until the callee's `onIncomingCallReceived`.
    case ring
    /// `acceptCall` sent until the caller's `onOutgoingCallAccepted`.
    case accept
    /// `endCall` sent until the callee's `onCallEndedMessageReceived`.
    case end
    /// Group: `initiateCall` sent until one member's `onIncomingCallReceived` (one per delivery).
    case delivery
    /// Group: `initiateCall` sent until the last member of the group got the call.
    case fanout

    /// Which metrics a scenario reports.
    public static func reported(by scenario: Scenario) -> [Metric] {
        switch scenario {
        case .idle: [.connect, .connectFirst1000, .connectLast1000]
        case .ring: [.connect, .ring, .accept, .end]
        case .group: [.connect, .delivery, .fanout]
        case .churn: [.connect, .reconnect, .ring, .accept, .end]
        case .drain: [.connect, .reconnect]
        }
    }
}

/// The measurements of a run, copied off the bench loop once it is over.
public struct MetricsSnapshot: Sendable {
    /// One histogram per metric.
    public var histograms: [Metric: LatencyHistogram]
    public var counts: BenchCounts
    /// Errors by code: the server's error codes, and the generator's own (see docs/bench-json.md).
    public var errors: [String: Int]
    /// Drain: when the moves off the draining gateway happened.
    public var moves = MoveTimeline()
}

/// Latencies of one metric, in microseconds, with three significant digits (HdrHistogram).
///
/// Recording is a few array operations and never allocates once the histogram exists; it is
/// filled on the bench loop's service thread and read once the run is over.
public struct LatencyHistogram: Sendable {
    /// The highest latency kept exactly: one hour. Longer ones are clamped to it.
    public static let highestMicroseconds: UInt64 = 3_600_000_000

    private(set) var histogram = Histogram<UInt64>(
        lowestDiscernibleValue: 1, highestTrackableValue: highestMicroseconds, numberOfSignificantValueDigits: .three)

    public init() {}

    /// Records a latency given in nanoseconds.
    public mutating func record(nanoseconds: UInt64) {
        let micros = max(1, min(Self.highestMicroseconds, nanoseconds / 1_000))
        _ = histogram.record(micros)
    }

    /// How many latencies were recorded.
    public var count: UInt64 { histogram.totalCount }

    /// The latency at `percentile` (0...100), in milliseconds.
    public func milliseconds(atPercentile percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / 1_000
    }

    /// The largest latency recorded, in milliseconds (0 when none).
    public var maxMilliseconds: Double {
        count == 0 ? 0 : Double(histogram.max) / 1_000
    }

    /// The percentile curve (percentile, latency in ms) for a plot, finer towards the tail.
    public func percentileCurve() -> [PercentilePoint] {
        guard count > 0 else { return [] }
        return histogram.percentiles(ticksPerHalfDistance: 5).map { step in
            PercentilePoint(percentile: step.percentileLevelIteratedTo, milliseconds: Double(step.value) / 1_000)
        }
    }
}
