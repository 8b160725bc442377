import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// `callgate serve --log-format json`: every line it logs is one JSON object with swift-log's
/// fields.
@Suite("JSON log lines of the real executable")
struct LogFormatTests {
    @Test func everyLineIsAJSONObjectWithTheRecordsFields() async throws {
        let directory = try TemporaryDirectory()
        let gateway = try GatewayProcess(arguments: [
            "--database", directory.path("callgate.sqlite"), "--log-level", "info", "--log-format", "json",
        ])
        defer { _ = gateway.terminate() }
        let listening = try #require(await gateway.log.line(containing: [#""message":"listening""#]))
        let lines = gateway.log.text.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            guard case .object(let record) = try JSONParser.parse(Array(line.utf8), maxDepth: 8) else {
                Issue.record("not a JSON object: \(line)")
                continue
            }
            for member in ["time", "level", "label", "message", "source", "file", "line"] {
                #expect(record[member] != nil, "\(member) missing in \(line)")
            }
        }
        guard case .object(let record) = try JSONParser.parse(Array(listening.utf8), maxDepth: 8),
            case .object(let metadata)? = record["metadata"], case .string(let time)? = record["time"]
        else {
            Issue.record("the listening line has no metadata: \(listening)")
            return
        }
        #expect(record["level"] == .string("info"))
        #expect(metadata["port"] == .string(String(gateway.port)))
        #expect(time.hasSuffix("Z") && time.contains("T"))
    }

    @Test func anUnknownFormatIsRefused() async throws {
        let directory = try TemporaryDirectory()
        #expect(throws: (any Error).self) {
            _ = try GatewayProcess(arguments: ["--database", directory.path("callgate.sqlite"), "--log-format", "xml"])
        }
    }
}
