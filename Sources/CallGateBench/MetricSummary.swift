/// The percentiles of one metric as the summary table and the JSON show them, in milliseconds.
public struct MetricSummary: Codable, Sendable, Equatable {
    public var count: UInt64
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var p999: Double
    public var max: Double
    /// Always "ms".
    public var unit: String

    public init(count: UInt64, p50: Double, p90: Double, p99: Double, p999: Double, max: Double) {
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.p999 = p999
        self.max = max
        unit = "ms"
    }

    /// The summary of `histogram`; all zero when it is empty.
    public init(_ histogram: LatencyHistogram) {
        guard histogram.count > 0 else {
            self.init(count: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0)
            return
        }
        self.init(
            count: histogram.count,
            p50: histogram.milliseconds(atPercentile: 50), p90: histogram.milliseconds(atPercentile: 90),
            p99: histogram.milliseconds(atPercentile: 99), p999: histogram.milliseconds(atPercentile: 99.9),
            max: histogram.maxMilliseconds)
    }
}
