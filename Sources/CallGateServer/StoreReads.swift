import NIOPosix

/// Runs the store reads that block (call log API, the missed-call counts of connects, read in
/// batches by `MissedCallReads`, webhook admin, a cluster node's group and takeover reads) on
/// threads of their own, at most ``threads`` at once, the rest queued in order.
///
/// Not on Dispatch's global queues: on Linux, Swift concurrency's tasks run on those same
/// threads, and the PostgreSQL store finishes each blocking read with a task
/// (`PostgresCallLogStore.blocking`). A burst of reads, such as the missed-call counts of a
/// reconnect storm, took every global thread and starved the very tasks they waited for: with
/// 64 connects in flight on a two-core machine, connects stalled until `connect` timed out.
final class StoreReads: Sendable {
    /// Reads at once: as many as the PostgreSQL store has connections.
    static let threads = 8

    private let pool: NIOThreadPool

    /// Starts the threads.
    init(threads: Int = StoreReads.threads) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    /// Runs `work` on one of the threads, after the reads queued before it; never once
    /// `shutdown` was called.
    func async(_ work: @escaping @Sendable () -> Void) {
        pool.submit { state in
            if case .active = state {
                work()
            }
        }
    }

    /// Stops the threads once the reads under way end, without waiting for them (a read stuck
    /// on a dead database must not hold a shutdown); queued reads are dropped.
    func shutdown() {
        pool.shutdownGracefully { _ in }
    }
}
