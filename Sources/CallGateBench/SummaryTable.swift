import Foundation

/// The plain-text summary printed at the end of a run: a header, one row per metric (p50, p90,
/// p99, p99.9, max in ms, and the rate), then rates, counts, errors and server memory.
public enum SummaryTable {
    static let columns = ["count", "p50", "p90", "p99", "p99.9", "max", "rate/s"]

    /// The whole summary, lines joined with newlines.
    public static func render(_ result: BenchResult) -> String {
        var lines: [String] = []
        let config = result.config
        let label = result.label.isEmpty ? "" : " [\(result.label)]"
        var header = "callgate-bench \(result.scenario.rawValue)\(label) against \(config.host):\(config.port): "
        header += "\(config.usedSockets) sockets"
        if config.addresses > 1 { header += " over \(config.addresses) source addresses" }
        header += ", \(Formatting.rate(config.duration)) s"
        if result.scenario != .idle { header += " at \(Formatting.rate(config.rate))/s" }
        if result.scenario == .group { header += ", groups of \(config.groupSize)" }
        lines.append(header)
        lines.append(
            "connect phase \(Formatting.rate(result.durations.connectSeconds)) s, scenario \(Formatting.rate(result.durations.scenarioSeconds)) s; latencies in ms")
        lines.append("")
        lines.append(Formatting.padRight("metric", 10) + columns.map { Formatting.padLeft($0, 10) }.joined())
        for name in result.orderedMetricNames {
            guard let summary = result.metrics[name] else { continue }
            let cells = [
                String(summary.count), Formatting.milliseconds(summary.p50), Formatting.milliseconds(summary.p90),
                Formatting.milliseconds(summary.p99), Formatting.milliseconds(summary.p999),
                Formatting.milliseconds(summary.max), Formatting.rate(result.rate(of: name)),
            ]
            lines.append(Formatting.padRight(name, 10) + cells.map { Formatting.padLeft($0, 10) }.joined())
        }
        lines.append("")
        lines.append("rates: " + result.rates.sorted { $0.key < $1.key }.map { "\($0.key) \(Formatting.rate($0.value))" }.joined(separator: ", "))
        lines.append("counts: " + countsLine(result))
        if result.errors.isEmpty {
            lines.append("errors: none")
        } else {
            lines.append("errors: " + result.errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        if let server = result.server {
            lines.append(
                "server RSS: \(Formatting.bytes(Int64(server.rssBeforeBytes))) -> \(Formatting.bytes(Int64(server.rssAfterBytes))), \(Formatting.bytes(server.bytesPerSocket)) per socket")
        }
        return lines.joined(separator: "\n")
    }

    /// The counts that matter for the scenario, in the order things happen.
    static func countsLine(_ result: BenchResult) -> String {
        let counts = result.counts
        var parts = ["connected \(counts.connected)"]
        if counts.connectFailures > 0 { parts.append("connect failures \(counts.connectFailures)") }
        switch result.scenario {
        case .idle:
            break
        case .drain:
            let moves = result.moves ?? MoveTimeline()
            parts += [
                "closed with 1012 \(moves.closed) over \(moves.closedPerSecond.count) s",
                "reconnected elsewhere \(moves.reconnected) over \(moves.reconnectedPerSecond.count) s",
                "busiest second \(moves.reconnectedPerSecond.max() ?? 0)",
            ]
            if moves.failedReconnects > 0 { parts.append("failed reconnects \(moves.failedReconnects)") }
        case .ring, .churn:
            parts += [
                "initiated \(counts.initiated)", "incoming \(counts.incoming)", "accepted \(counts.accepted)",
                "ended \(counts.ended)", "completed \(counts.completed)",
            ]
        case .group:
            parts += [
                "rings \(counts.initiated)", "deliveries \(counts.deliveries)", "fan-outs \(counts.fanouts)",
                "cancels \(counts.cancelled)", "completed \(counts.completed)",
            ]
        }
        if result.scenario == .churn {
            parts += ["disconnects \(counts.disconnects)", "reconnects \(counts.reconnects)"]
        }
        if counts.skipped > 0 { parts.append("skipped \(counts.skipped) (every pair or group busy)") }
        return parts.joined(separator: ", ")
    }
}

/// Writes a result as `--json` and `--report` files.
public enum ResultFiles {
    /// The JSON of docs/bench-json.md: pretty-printed, keys sorted.
    public static func json(_ result: BenchResult) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(result)
    }

    public static func writeJSON(_ result: BenchResult, to path: String) throws {
        try json(result).write(to: URL(fileURLWithPath: path))
    }

    public static func writeReport(_ result: BenchResult, to path: String) throws {
        try Data(HTMLReport.render(result).utf8).write(to: URL(fileURLWithPath: path))
    }
}
