import CallGateProtocol
import Foundation
import Logging
import Synchronization

/// `--log-format json`: each log record as one JSON object on one line of standard error, for
/// log shippers (Loki, Elasticsearch, CloudWatch). The members are what swift-log carries:
/// `time` (ISO 8601, UTC, milliseconds), `level`, `label`, `message`, `source`, `file`, `line`,
/// and the record's metadata as `metadata` (strings, lists and objects as they are; any other
/// value as its description). Any thread: a line is written with one `write`.
struct JSONLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    private let label: String

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        let merged = metadata.merging(explicit ?? [:]) { $1 }
        var record: [String: JSONValue] = [
            "time": .string(Self.timestamp(Date())), "level": .string(level.rawValue), "label": .string(label),
            "message": .string(message.description), "source": .string(source), "file": .string(file), "line": .number(Double(line)),
        ]
        if !merged.isEmpty {
            record["metadata"] = .object(merged.mapValues(Self.json))
        }
        guard var bytes = try? JSONValue.object(record).encoded() else { return }
        bytes.append(UInt8(ascii: "\n"))
        Self.output.withLock { _ in FileHandle.standardError.write(bytes) }
    }

    /// Serializes the lines of every handler of the process.
    private static let output = Mutex(())

    private static func json(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let items): .array(items.map(json))
        case .dictionary(let members): .object(members.mapValues(json))
        }
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }
}
