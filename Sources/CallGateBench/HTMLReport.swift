/// The `--report` page: one self-contained HTML file (inline CSS and SVG, nothing fetched) with
/// the run's settings, the summary table, percentile plots (call latencies, and connect latencies
/// apart, as they are often ten times larger), counts, errors and server memory.
public enum HTMLReport {
    /// The page for `result`.
    public static func render(_ result: BenchResult) -> String {
        let escape = PercentilePlot.escape
        let config = result.config
        let title = "callgate-bench \(result.scenario.rawValue)" + (result.label.isEmpty ? "" : " - \(result.label)")
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(escape(title))</title>
            <style>
            body { font-family: sans-serif; margin: 2em; color: #222; }
            table { border-collapse: collapse; margin: 1em 0; }
            th, td { border: 1px solid #ccc; padding: 4px 10px; text-align: right; }
            th:first-child, td:first-child { text-align: left; }
            caption { text-align: left; font-weight: bold; padding-bottom: 4px; }
            </style>
            </head>
            <body>
            <h1>\(escape(title))</h1>

            """
        let settings: [(String, String)] = [
            ("target", "\(config.host):\(config.port)"),
            ("sockets", "\(config.usedSockets) of \(config.sockets) asked"),
            ("source addresses", config.addresses == 0 ? "not bound" : String(config.addresses)),
            ("duration", "\(Formatting.rate(config.duration)) s"),
            ("rate", result.scenario == .idle ? "-" : "\(Formatting.rate(config.rate)) /s"),
            ("group size", result.scenario == .group ? String(config.groupSize) : "-"),
            ("connect phase", "\(Formatting.rate(result.durations.connectSeconds)) s"),
            ("scenario", "\(Formatting.rate(result.durations.scenarioSeconds)) s"),
        ]
        html += table(caption: "Run", header: ["setting", "value"], rows: settings.map { [$0.0, $0.1] })
        let latencyRows = result.orderedMetricNames.compactMap { name -> [String]? in
            guard let summary = result.metrics[name] else { return nil }
            return [
                name, String(summary.count), Formatting.milliseconds(summary.p50), Formatting.milliseconds(summary.p90),
                Formatting.milliseconds(summary.p99), Formatting.milliseconds(summary.p999),
                Formatting.milliseconds(summary.max), Formatting.rate(result.rate(of: name)),
            ]
        }
        html += table(
            caption: "Latency (ms)", header: ["metric", "count", "p50", "p90", "p99", "p99.9", "max", "rate/s"],
            rows: latencyRows)
        let connecting = [
            Metric.connect.rawValue, Metric.connectFirst1000.rawValue, Metric.connectLast1000.rawValue,
            Metric.reconnect.rawValue,
        ]
        let calls = result.orderedMetricNames.filter { !connecting.contains($0) }
        if !calls.isEmpty {
            html += "<h2>Call latency by percentile</h2>\n"
            html += PercentilePlot.svg(calls.map { PlotSeries(name: $0, points: result.curves[$0] ?? []) })
        }
        html += "<h2>Connect latency by percentile</h2>\n"
        html += PercentilePlot.svg(
            result.orderedMetricNames.filter(connecting.contains).map { PlotSeries(name: $0, points: result.curves[$0] ?? []) })
        html += table(
            caption: "Rates", header: ["rate", "per second"],
            rows: result.rates.sorted { $0.key < $1.key }.map { [$0.key, Formatting.rate($0.value)] })
        html += "<p>Counts: \(escape(SummaryTable.countsLine(result)))</p>\n"
        if result.errors.isEmpty {
            html += "<p>Errors: none</p>\n"
        } else {
            html += table(
                caption: "Errors", header: ["code", "count"],
                rows: result.errors.sorted { $0.key < $1.key }.map { [$0.key, String($0.value)] })
        }
        if let server = result.server {
            html += table(
                caption: "Server memory (VmRSS)", header: ["before", "after", "per socket"],
                rows: [[
                    Formatting.bytes(Int64(server.rssBeforeBytes)), Formatting.bytes(Int64(server.rssAfterBytes)),
                    Formatting.bytes(server.bytesPerSocket),
                ]])
        }
        html += "</body>\n</html>\n"
        return html
    }

    private static func table(caption: String, header: [String], rows: [[String]]) -> String {
        let escape = PercentilePlot.escape
        var html = "<table>\n<caption>\(escape(caption))</caption>\n<tr>"
        html += header.map { "<th>\(escape($0))</th>" }.joined()
        html += "</tr>\n"
        for row in rows {
            html += "<tr>" + row.map { "<td>\(escape($0))</td>" }.joined() + "</tr>\n"
        }
        return html + "</table>\n"
    }
}
