import CallGateConsole
import Synchronization

/// Lines a session printed, collected from any task.
final class PrintedLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var output: ConsoleOutput { { line in self.lines.withLock { $0.append(line) } } }

    /// Waits (bounded) until a line contains `text`.
    func waitFor(_ text: String) async -> Bool {
        for _ in 0..<500 {
            if all.contains(where: { $0.contains(text) }) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
