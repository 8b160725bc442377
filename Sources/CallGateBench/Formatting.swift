import Foundation

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
