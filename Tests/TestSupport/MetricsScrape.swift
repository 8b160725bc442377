/// A Prometheus text exposition read back as series -> value, e.g. `name{code="4001"}` -> 1:
/// the part of a sample line before its last space, and the number after it.
public struct MetricsScrape {
    private var values: [String: Double] = [:]
    /// Sample lines that did not end in a number.
    public private(set) var unreadable: [String] = []

    /// Reads `text`, a Prometheus text exposition.
    public init(_ text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                unreadable.append(String(line))
                continue
            }
            values[String(line[..<space])] = value
        }
    }

    /// The value of `series`, or nil when the exposition has no such series.
    public subscript(series: String) -> Double? {
        values[series]
    }
}
