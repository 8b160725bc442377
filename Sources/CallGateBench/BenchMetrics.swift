/// The live measurements of a run. Confined to the bench loop's service thread: no locks.
final class BenchMetrics {
    private var histograms = [LatencyHistogram](repeating: LatencyHistogram(), count: Metric.allCases.count)
    var counts = BenchCounts()
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
        return MetricsSnapshot(histograms: byMetric, counts: counts, errors: errors)
    }

    private static func slot(_ metric: Metric) -> Int {
        Metric.allCases.firstIndex(of: metric)!
    }
}
