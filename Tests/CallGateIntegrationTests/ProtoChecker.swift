import Foundation
import TestSupport

/// Runs `tools/proto_check.py --frames` (jsonschema, draft 2020-12) over schema lines.
enum ProtoChecker {
    /// The repository root, found from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func check(_ lines: [SchemaLine]) async throws -> CommandRun {
        try await offPool { try checkBlocking(lines) }
    }

    private static func checkBlocking(_ lines: [SchemaLine]) throws -> CommandRun {
        var input = Data()
        for line in lines {
            input.append(Data(#"{"schema":""#.utf8))
            input.append(Data(line.schema.utf8))
            input.append(Data(#"","frame":"#.utf8))
            input.append(line.json)
            input.append(Data("}\n".utf8))
        }
        let framesFile = FileManager.default.temporaryDirectory.appendingPathComponent("callgate-frames-\(UUID()).jsonl")
        try input.write(to: framesFile)
        defer { try? FileManager.default.removeItem(at: framesFile) }

        return try CommandRun.runBlocking(
            ["python3", repositoryRoot.appendingPathComponent("tools/proto_check.py").path, "--frames", framesFile.path],
            timeoutSeconds: 300)
    }
}
