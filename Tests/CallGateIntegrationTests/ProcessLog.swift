import Foundation

/// Collects what a child process writes to a pipe, from a background reader, so a test can wait
/// for a line it expects. Any thread.
final class ProcessLog: @unchecked Sendable {
    /// Give this to the child as its output.
    let pipe = Pipe()
    private let lock = NSLock()
    private var collected = ""

    init() {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            guard let self else { return }
            if chunk.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            lock.withLock { collected += String(decoding: chunk, as: UTF8.self) }
        }
    }

    /// Everything read so far.
    var text: String {
        lock.withLock { collected }
    }

    /// The first line that contains every one of `parts`, waiting up to `timeout` for it to be
    /// written; nil if none came.
    func line(containing parts: [String], timeout: Duration = .seconds(10)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let match = text.split(separator: "\n").first { line in parts.allSatisfy { line.contains($0) } }
            if let match { return String(match) }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
