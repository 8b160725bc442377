import Histogram

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
