@testable import CallGateBench

/// A finished ring run with made-up latencies, for the table, JSON and report tests.
enum SampleResult {
    static func ring(errors: [String: Int] = [:], withServer: Bool = true) -> BenchResult {
        var histograms: [Metric: LatencyHistogram] = [:]
        for (metric, base) in [(Metric.connect, 800), (.ring, 300), (.accept, 250), (.end, 200)] {
            var histogram = LatencyHistogram()
            for step in 0..<1_000 { histogram.record(nanoseconds: UInt64(base + step) * 1_000) }
            histograms[metric] = histogram
        }
        var counts = BenchCounts()
        counts.connected = 1_000
        counts.initiated = 1_000
        counts.incoming = 1_000
        counts.accepted = 1_000
        counts.ended = 1_000
        counts.completed = 1_000
        let outcome = EngineOutcome(
            snapshot: MetricsSnapshot(histograms: histograms, counts: counts, errors: errors),
            connectSeconds: 0.5, scenarioSeconds: 10, failure: nil)
        let configuration = BenchConfiguration(
            scenario: .ring, port: 9000, jwtSecret: "secret-never-shown", adminKey: "admin-never-shown", sockets: 1_000,
            rate: 100, serverPID: withServer ? 42 : nil, label: "a <label>")
        let server = withServer ? ServerMemoryReport(rssBeforeBytes: 30 << 20, rssAfterBytes: 40 << 20, sockets: 1_000) : nil
        return BenchResult(configuration: configuration, addresses: 1, outcome: outcome, server: server)
    }
}
