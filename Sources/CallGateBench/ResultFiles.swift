import Foundation

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
