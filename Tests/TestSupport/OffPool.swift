import Foundation

/// Runs blocking work (a child process to its end, a poll with `usleep`) on a Dispatch thread and
/// awaits it, so it never holds one of Swift concurrency's cooperative threads. There is one per
/// core: the gateway under test checks tokens on them, and two tests blocking them at once on a
/// 2-core machine stall every gateway in the test process past its deadlines.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}
