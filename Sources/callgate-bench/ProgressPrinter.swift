import Foundation
import Synchronization

/// Shows the progress line on standard error: rewritten in place on a terminal, one line every
/// five seconds otherwise (so logs stay short). Called from the bench loop's thread.
final class ProgressPrinter: Sendable {
    private let interactive = isatty(STDERR_FILENO) == 1
    private let shown = Mutex(0)

    /// Shows one progress line.
    func show(_ line: String) {
        let count = shown.withLock { count -> Int in
            count += 1
            return count
        }
        if interactive {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
        } else if count % 5 == 0 {
            FileHandle.standardError.write(Data("\(line)\n".utf8))
        }
    }

    /// Ends the line on a terminal, so the summary starts on a fresh one.
    func finish() {
        if interactive, shown.withLock({ $0 }) > 0 {
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
    }
}
