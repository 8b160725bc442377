import Testing

@testable import CallGateBench

@Suite struct LatencyHistogramTests {
    @Test func summarisesPercentilesInMilliseconds() {
        var histogram = LatencyHistogram()
        for micros in 1...1_000 {
            histogram.record(nanoseconds: UInt64(micros) * 1_000)
        }
        let summary = MetricSummary(histogram)
        #expect(summary.count == 1_000)
        #expect(abs(summary.p50 - 0.5) < 0.01)
        #expect(abs(summary.p90 - 0.9) < 0.01)
        #expect(abs(summary.p99 - 0.99) < 0.01)
        #expect(abs(summary.max - 1.0) < 0.01)
        #expect(summary.unit == "ms")
    }

    @Test func anEmptyHistogramSummarisesToZeros() {
        #expect(MetricSummary(LatencyHistogram()) == MetricSummary(count: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0))
        #expect(LatencyHistogram().percentileCurve().isEmpty)
    }

    @Test func hugeAndTinyValuesAreClamped() {
        var histogram = LatencyHistogram()
        histogram.record(nanoseconds: 0)
        histogram.record(nanoseconds: UInt64.max / 2)
        #expect(histogram.count == 2)
        #expect(histogram.maxMilliseconds >= 3_599_000)
    }

    @Test func theCurveRisesToTheMax() {
        var histogram = LatencyHistogram()
        for value in [100, 200, 300, 5_000] {
            histogram.record(nanoseconds: UInt64(value) * 1_000)
        }
        let curve = histogram.percentileCurve()
        #expect(!curve.isEmpty)
        #expect(zip(curve, curve.dropFirst()).allSatisfy { $0.milliseconds <= $1.milliseconds && $0.percentile <= $1.percentile })
        #expect(abs((curve.last?.milliseconds ?? 0) - 5) < 0.01)
    }
}
