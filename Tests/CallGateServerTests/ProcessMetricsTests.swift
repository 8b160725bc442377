import Foundation
import Testing

@testable import CallGateServer

/// The process metrics' own thread: it names itself, so `tools/bench` and `top -H` count its
/// seconds apart from the service thread that first asked for the metrics.
@Suite struct ProcessMetricsTests {
    @Test func theRefreshingThreadNamesItself() async throws {
        _ = ProcessMetrics.exposition()
        var names: [String] = []
        for _ in 0..<50 {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            names = tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            if names.contains(ProcessMetrics.threadName) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(names.contains(ProcessMetrics.threadName), "threads: \(names)")
    }
}
