/// Everything a run measured: what `--json` writes (schema in docs/bench-json.md), and what the
/// summary table and the HTML report show.
public struct BenchResult: Codable, Sendable {
    public var scenario: Scenario
    /// `--label`, or "" when none was given.
    public var label: String
    public var config: RunSettings
    /// Latency summaries by metric name (`connect`, `ring`, ...), for the metrics the scenario reports.
    public var metrics: [String: MetricSummary]
    /// Events per second: `deliveriesPerSecond`, `callsPerSecond`, `connectsPerSecond`, and
    /// `reconnectsPerSecond` for churn.
    public var rates: [String: Double]
    /// Errors by code; empty when there were none.
    public var errors: [String: Int]
    public var counts: BenchCounts
    public var durations: RunDurations
    /// Present when `--server-pid` was given.
    public var server: ServerMemoryReport?
    /// Percentile curves by metric name, for the report's plot; not written to the JSON.
    public var curves: [String: [PercentilePoint]] = [:]

    private enum CodingKeys: String, CodingKey {
        case scenario, label, config, metrics, rates, errors, counts, durations, server
    }

    /// The result of a finished run.
    init(configuration: BenchConfiguration, addresses: Int, outcome: EngineOutcome, server: ServerMemoryReport?) {
        scenario = configuration.scenario
        label = configuration.label ?? ""
        config = RunSettings(
            host: configuration.host, port: configuration.port, sockets: configuration.sockets,
            usedSockets: configuration.usedSockets, duration: configuration.duration, rate: configuration.rate,
            groupSize: configuration.groupSize, addresses: addresses, serverPid: configuration.serverPID, loops: 1)
        let snapshot = outcome.snapshot
        metrics = [:]
        for metric in Metric.reported(by: configuration.scenario) {
            let histogram = snapshot.histograms[metric] ?? LatencyHistogram()
            metrics[metric.rawValue] = MetricSummary(histogram)
            curves[metric.rawValue] = histogram.percentileCurve()
        }
        counts = snapshot.counts
        errors = snapshot.errors
        durations = RunDurations(connectSeconds: outcome.connectSeconds, scenarioSeconds: outcome.scenarioSeconds)
        self.server = server
        rates = Self.rates(scenario: configuration.scenario, counts: counts, durations: durations)
    }

    static func rates(scenario: Scenario, counts: BenchCounts, durations: RunDurations) -> [String: Double] {
        func perSecond(_ count: Int, _ seconds: Double) -> Double {
            seconds > 0 ? (Double(count) / seconds * 10).rounded() / 10 : 0
        }
        let seconds = durations.scenarioSeconds
        var rates = ["connectsPerSecond": perSecond(counts.connected, durations.connectSeconds)]
        switch scenario {
        case .idle:
            rates["callsPerSecond"] = 0
            rates["deliveriesPerSecond"] = 0
        case .ring, .churn:
            rates["callsPerSecond"] = perSecond(counts.completed, seconds)
            rates["deliveriesPerSecond"] = perSecond(counts.incoming, seconds)
        case .group:
            rates["callsPerSecond"] = perSecond(counts.fanouts, seconds)
            rates["deliveriesPerSecond"] = perSecond(counts.deliveries, seconds)
        }
        if scenario == .churn {
            rates["reconnectsPerSecond"] = perSecond(counts.reconnects, seconds)
        }
        return rates
    }

    /// Events per second for one metric's column in the summary table.
    public func rate(of metric: String) -> Double {
        let seconds = metric == Metric.connect.rawValue ? durations.connectSeconds : durations.scenarioSeconds
        guard seconds > 0, let summary = metrics[metric] else { return 0 }
        return Double(summary.count) / seconds
    }

    /// The metrics in their fixed order (connect first), for tables and plots.
    public var orderedMetricNames: [String] {
        Metric.allCases.map(\.rawValue).filter { metrics[$0] != nil }
    }
}
