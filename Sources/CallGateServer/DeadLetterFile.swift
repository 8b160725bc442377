import CallGateCore
import Foundation
import Logging

/// Where the writer puts a write the store refuses for good (while it takes others), so that
/// it blocks nothing behind it and is still not lost: one JSON object per line, appended, with
/// the time, the store's error and the write itself (`StoreWrite`'s Codable form). An operator
/// can read it back or replay it. Writer thread only.
struct DeadLetterFile {
    let path: String?
    let logger: Logger

    private struct Entry: Encodable {
        var at: String
        var error: String
        var write: StoreWrite
    }

    /// Appends `write` with `error`; logs it either way, and logs the whole entry when there is
    /// no file or the file cannot be written, so the write survives in the log at least.
    func append(_ write: StoreWrite, error: any Error) {
        let entry = Entry(at: Date.now.ISO8601Format(), error: "\(error)", write: write)
        let line = (try? JSONEncoder().encode(entry)).map { $0 + Data("\n".utf8) }
        guard let path, let line, Self.append(line, to: path) else {
            logger.critical(
                "store write set aside; no dead-letter file took it",
                metadata: ["error": "\(error)", "entry": "\(line.map { String(decoding: $0, as: UTF8.self) } ?? "\(write)")"])
            return
        }
        logger.error("store write refused for good; set aside", metadata: ["error": "\(error)", "file": "\(path)"])
    }

    private static func append(_ line: Data, to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return written == line.count && fsync(fd) == 0
    }
}
