/// The measurements of a run, copied off the bench loop once it is over.
public struct MetricsSnapshot: Sendable {
    /// One histogram per metric.
    public var histograms: [Metric: LatencyHistogram]
    public var counts: BenchCounts
    /// Errors by code: the server's error codes, and the generator's own (see docs/bench-json.md).
    public var errors: [String: Int]
}
