import Foundation

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

/// Draws latency percentile curves as a self-contained SVG (no scripts, fonts or links), in the
/// usual HdrHistogram layout: the x axis stretches the tail (0%, 90%, 99%, 99.9%, ...) on a
/// log scale of 1/(1-p), the y axis is latency in milliseconds.
public enum PercentilePlot {
    static let width = 760.0
    static let height = 420.0
    static let left = 64.0
    static let right = 150.0
    static let top = 20.0
    static let bottom = 48.0
    static let colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]
    /// The x axis never reaches past 99.999%.
    static let maxNines = 5.0

    /// The SVG document for `series`; an empty plot with a note when no series has points.
    public static func svg(_ series: [PlotSeries]) -> String {
        let drawn = series.filter { !$0.points.isEmpty }
        let nines = xMax(drawn)
        let yTop = niceCeiling(drawn.flatMap(\.points).map(\.milliseconds).max() ?? 1)
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        func x(_ percentile: Double) -> Double { left + min(position(percentile), nines) / nines * plotWidth }
        func y(_ milliseconds: Double) -> Double { top + plotHeight - min(milliseconds, yTop) / yTop * plotHeight }

        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
        svg += "viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        svg += "<rect x=\"0\" y=\"0\" width=\"\(Int(width))\" height=\"\(Int(height))\" fill=\"#ffffff\"/>\n"
        for step in 0...5 {
            let value = yTop * Double(step) / 5
            let lineY = number(y(value))
            svg += "<line x1=\"\(number(left))\" y1=\"\(lineY)\" x2=\"\(number(left + plotWidth))\" y2=\"\(lineY)\" stroke=\"#dddddd\"/>\n"
            svg += "<text x=\"\(number(left - 6))\" y=\"\(lineY)\" text-anchor=\"end\" dominant-baseline=\"middle\">\(axisNumber(value))</text>\n"
        }
        for nine in 0...Int(nines) {
            let percentile = 100 - 100 / pow(10, Double(nine))
            let lineX = number(x(percentile))
            svg += "<line x1=\"\(lineX)\" y1=\"\(number(top))\" x2=\"\(lineX)\" y2=\"\(number(top + plotHeight))\" stroke=\"#dddddd\"/>\n"
            svg += "<text x=\"\(lineX)\" y=\"\(number(top + plotHeight + 16))\" text-anchor=\"middle\">\(percentLabel(nine))</text>\n"
        }
        svg += "<rect x=\"\(number(left))\" y=\"\(number(top))\" width=\"\(number(plotWidth))\" height=\"\(number(plotHeight))\" fill=\"none\" stroke=\"#444444\"/>\n"
        svg += "<text x=\"\(number(left + plotWidth / 2))\" y=\"\(number(height - 8))\" text-anchor=\"middle\">percentile</text>\n"
        svg += "<text x=\"14\" y=\"\(number(top + plotHeight / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 14 \(number(top + plotHeight / 2)))\">latency (ms)</text>\n"
        if drawn.isEmpty {
            svg += "<text x=\"\(number(left + plotWidth / 2))\" y=\"\(number(top + plotHeight / 2))\" text-anchor=\"middle\">no latencies recorded</text>\n"
        }
        for (index, line) in drawn.enumerated() {
            let color = colors[index % colors.count]
            let points = line.points.map { "\(number(x($0.percentile))),\(number(y($0.milliseconds)))" }.joined(separator: " ")
            svg += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points)\"><title>\(escape(line.name))</title></polyline>\n"
            let legendY = top + 14 + Double(index) * 18
            svg += "<line x1=\"\(number(width - right + 12))\" y1=\"\(number(legendY))\" x2=\"\(number(width - right + 36))\" y2=\"\(number(legendY))\" stroke=\"\(color)\" stroke-width=\"3\"/>\n"
            svg += "<text x=\"\(number(width - right + 42))\" y=\"\(number(legendY))\" dominant-baseline=\"middle\">\(escape(line.name))</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    /// Where a percentile sits on the x axis, in "nines": 0 for 0%, 1 for 90%, 2 for 99%, ...
    static func position(_ percentile: Double) -> Double {
        let remaining = 1 - percentile / 100
        guard remaining > 0 else { return maxNines }
        return min(maxNines, log10(1 / remaining))
    }

    /// The x axis spans from 0% to the tail the data reaches, at least 99% and at most 99.999%.
    static func xMax(_ series: [PlotSeries]) -> Double {
        let deepest = series.flatMap(\.points).map { position($0.percentile) }.filter { $0 < maxNines }.max() ?? 2
        return min(maxNines, max(2, deepest.rounded(.up)))
    }

    /// The smallest of 1, 2, 2.5, 5 times a power of ten that is at least `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, (log10(value)).rounded(.down))
        for step in [1.0, 2, 2.5, 5, 10] where step * power >= value {
            return step * power
        }
        return 10 * power
    }

    static func percentLabel(_ nines: Int) -> String {
        switch nines {
        case 0: "0%"
        case 1: "90%"
        case 2: "99%"
        default: "99." + String(repeating: "9", count: nines - 2) + "%"
        }
    }

    static func axisNumber(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
    }

    static func number(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    /// Escapes text for XML content and attributes.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// One point of a latency percentile curve: `percentile` of the values are at or below `milliseconds`.
public struct PercentilePoint: Sendable, Equatable {
    public var percentile: Double
    public var milliseconds: Double

    public init(percentile: Double, milliseconds: Double) {
        self.percentile = percentile
        self.milliseconds = milliseconds
    }
}

/// One line of the percentile plot: a metric's name and its curve.
public struct PlotSeries: Sendable, Equatable {
    public var name: String
    public var points: [PercentilePoint]

    public init(name: String, points: [PercentilePoint]) {
        self.name = name
        self.points = points
    }
}

/// Number formats shared by the table and the report.
enum Formatting {
    /// A latency in ms: three decimals below 10, two below 100, one above.
    static func milliseconds(_ value: Double) -> String {
        if value < 10 { return String(format: "%.3f", value) }
        if value < 100 { return String(format: "%.2f", value) }
        return String(format: "%.1f", value)
    }

    /// A rate with one decimal.
    static func rate(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    /// Bytes as B, KiB, MiB or GiB with one decimal.
    static func bytes(_ value: Int64) -> String {
        let magnitude = Double(abs(value))
        let sign = value < 0 ? "-" : ""
        switch magnitude {
        case ..<1_024: return "\(value) B"
        case ..<(1_024 * 1_024): return sign + String(format: "%.1f KiB", magnitude / 1_024)
        case ..<(1_024 * 1_024 * 1_024): return sign + String(format: "%.1f MiB", magnitude / 1_048_576)
        default: return sign + String(format: "%.2f GiB", magnitude / 1_073_741_824)
        }
    }

    /// Right-aligns `text` in `width` columns.
    static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// Left-aligns `text` in `width` columns.
    static func padRight(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
