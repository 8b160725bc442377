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
    /// Drain only: when the sockets moved off the draining gateway.
    public var moves: MoveTimeline?
    /// Percentile curves by metric name, for the report's plot; not written to the JSON.
    public var curves: [String: [PercentilePoint]] = [:]

    private enum CodingKeys: String, CodingKey {
        case scenario, label, config, metrics, rates, errors, counts, durations, server, moves
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
        moves = configuration.scenario == .drain ? snapshot.moves : nil
        rates = Self.rates(scenario: configuration.scenario, counts: counts, durations: durations)
    }

    static func rates(scenario: Scenario, counts: BenchCounts, durations: RunDurations) -> [String: Double] {
        func perSecond(_ count: Int, _ seconds: Double) -> Double {
            seconds > 0 ? (Double(count) / seconds * 10).rounded() / 10 : 0
        }
        let seconds = durations.scenarioSeconds
        var rates = ["connectsPerSecond": perSecond(counts.connected, durations.connectSeconds)]
        switch scenario {
        case .idle, .drain:
            rates["callsPerSecond"] = 0
            rates["deliveriesPerSecond"] = 0
        case .ring, .churn:
            rates["callsPerSecond"] = perSecond(counts.completed, seconds)
            rates["deliveriesPerSecond"] = perSecond(counts.incoming, seconds)
        case .group:
            rates["callsPerSecond"] = perSecond(counts.fanouts, seconds)
            rates["deliveriesPerSecond"] = perSecond(counts.deliveries, seconds)
        }
        if scenario == .churn || scenario == .drain {
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

/// The `config` object of a result: what was asked for and what was used, without secrets.
public struct RunSettings: Codable, Sendable, Equatable {
    public var host: String
    public var port: Int
    /// Sockets asked for (`--sockets`).
    public var sockets: Int
    /// Sockets the scenario really used (pairs, whole groups).
    public var usedSockets: Int
    public var duration: Double
    public var rate: Double
    public var groupSize: Int
    /// Source addresses the sockets were spread over; 0 when they were not bound.
    public var addresses: Int
    public var serverPid: Int32?
    /// Client event loops (threads) the generator ran.
    public var loops: Int
}

/// How long the phases of a run took, in seconds.
public struct RunDurations: Codable, Sendable, Equatable {
    /// First socket opened until every socket was connected (or had failed).
    public var connectSeconds: Double
    /// Scenario start until the last call finished: the duration plus the drain.
    public var scenarioSeconds: Double
}

/// The gateway's resident memory before and after the sockets connected.
public struct ServerMemoryReport: Codable, Sendable, Equatable {
    /// VmRSS before the first socket opened.
    public var rssBeforeBytes: UInt64
    /// VmRSS at the end of the scenario, sockets still open.
    public var rssAfterBytes: UInt64
    /// (after - before) / sockets connected; negative if the server shrank.
    public var bytesPerSocket: Int64

    public init(rssBeforeBytes: UInt64, rssAfterBytes: UInt64, sockets: Int) {
        self.rssBeforeBytes = rssBeforeBytes
        self.rssAfterBytes = rssAfterBytes
        let growth = Int64(rssAfterBytes) - Int64(rssBeforeBytes)
        bytesPerSocket = sockets > 0 ? growth / Int64(sockets) : 0
    }
}

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

/// What happened during a run, counted; the integration tests check these add up.
public struct BenchCounts: Codable, Sendable, Equatable {
    /// Sockets authenticated in the connect phase.
    public var connected = 0
    /// Sockets that failed to connect or authenticate in the connect phase.
    public var connectFailures = 0
    /// `initiateCall` requests sent.
    public var initiated = 0
    /// `initiateCall` requests the server accepted.
    public var initiateAccepted = 0
    /// `onIncomingCallReceived` pushes of 1:1 calls (ring, churn).
    public var incoming = 0
    /// `onOutgoingCallAccepted` pushes the callers received.
    public var accepted = 0
    /// `onCallEndedMessageReceived` pushes the callees received.
    public var ended = 0
    /// Calls (ring, churn) or group rings (group) that went through their whole cycle.
    public var completed = 0
    /// Group: `onIncomingCallReceived` pushes, one per member per ring.
    public var deliveries = 0
    /// Group: rings that reached every member.
    public var fanouts = 0
    /// Group: `onIncomingCallCanceled` pushes after the caller cancelled.
    public var cancelled = 0
    /// Churn: sockets closed on purpose.
    public var disconnects = 0
    /// Churn: sockets that connected and authenticated again.
    public var reconnects = 0
    /// Calls or rings that were due but not started: every pair or group was still busy.
    public var skipped = 0
    /// `onMissedCallsChanged` pushes: the callees' counts of missed calls (every ring the
    /// generator cancels is a missed call of theirs), counted and not followed.
    public var missedCallCounts = 0
    /// Frames sent and received over the whole run.
    public var framesSent = 0
    public var framesReceived = 0

    public init() {}
}
