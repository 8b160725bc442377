import CallGateCore
import Foundation
import Logging

/// Writes call log and group changes to the store on a thread of its own, in submission order,
/// with group commit: everything submitted while a transaction runs goes into the next one.
///
/// `submit` is called on the service thread and never waits for the disk; `onCommitted` runs on
/// the writer thread after each transaction with the highest sequence number it made durable.
/// A failed transaction is retried (with backoff, logged) until it succeeds, so nothing submitted
/// is dropped while the gateway runs; `stop` gives it a bounded time to drain.
final class CallLogWriter: @unchecked Sendable {
    private let store: any CallLogStore
    private let logger: Logger
    private let metrics: StoreMetrics
    private let onCommitted: @Sendable (UInt64) -> Void
    /// Guards every member below it.
    private let condition = NSCondition()
    private var pending: [StoreWrite] = []
    private var lastSubmitted: UInt64 = 0
    private var stopDeadline: ContinuousClock.Instant?
    private let finished = DispatchSemaphore(value: 0)
    /// Set on the writer thread when a batch was given up at shutdown; read after it ended.
    private var lostWrites = false

    /// Starts the writer thread; `metrics` hears of every commit and every failed attempt.
    init(store: any CallLogStore, logger: Logger, metrics: StoreMetrics, onCommitted: @escaping @Sendable (UInt64) -> Void) {
        self.store = store
        self.logger = logger
        self.metrics = metrics
        self.onCommitted = onCommitted
        let thread = Thread { [self] in run() }
        thread.name = "callgate-store-writer"
        thread.start()
    }

    /// Queues `writes` for the next transaction and returns their sequence number (increasing
    /// from 1). Any thread; returns at once.
    func submit(_ writes: [StoreWrite]) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        lastSubmitted += 1
        pending.append(contentsOf: writes)
        condition.signal()
        return lastSubmitted
    }

    /// Writes what is queued (retrying failures for at most `timeout`) and ends the thread;
    /// returns false when writes were given up. Any thread but the writer's; blocks until the
    /// thread is done.
    @discardableResult
    func stop(timeout: Duration = .seconds(5)) -> Bool {
        condition.lock()
        stopDeadline = ContinuousClock.now + timeout
        condition.signal()
        condition.unlock()
        finished.wait()
        return !lostWrites
    }

    private func run() {
        while let (batch, upTo) = nextBatch() {
            if commit(Self.coalesced(batch)) {
                onCommitted(upTo)
            }
        }
        finished.signal()
    }

    /// Waits for work; nil once stopping with nothing left.
    private func nextBatch() -> ([StoreWrite], UInt64)? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty, stopDeadline == nil {
            condition.wait()
        }
        guard !pending.isEmpty else { return nil }
        defer { pending.removeAll(keepingCapacity: true) }
        return (pending, lastSubmitted)
    }

    /// Applies one batch, retrying with backoff; false only when stopping ran out of time.
    private func commit(_ batch: [StoreWrite]) -> Bool {
        var delayMillis = 50
        while true {
            do {
                let started = ContinuousClock.now
                try store.apply(batch)
                metrics.committed(writes: batch.count, in: .now - started)
                return true
            } catch {
                metrics.writeFailed()
                logger.error("call log write failed; retrying", metadata: ["error": "\(error)", "writes": "\(batch.count)"])
            }
            if let deadline = stopDeadlineNow(), ContinuousClock.now + .milliseconds(delayMillis) > deadline {
                logger.critical("call log writes lost at shutdown", metadata: ["writes": "\(batch.count)"])
                lostWrites = true
                return false
            }
            Thread.sleep(forTimeInterval: TimeInterval(delayMillis) / 1000)
            delayMillis = min(delayMillis * 2, 2000)
        }
    }

    private func stopDeadlineNow() -> ContinuousClock.Instant? {
        condition.lock()
        defer { condition.unlock() }
        return stopDeadline
    }

    /// `writes` with only the last save of each call kept, in order: one row per call however
    /// many transitions it went through since the last transaction.
    static func coalesced(_ writes: [StoreWrite]) -> [StoreWrite] {
        var seen = Set<Int64>()
        var kept: [StoreWrite] = []
        kept.reserveCapacity(writes.count)
        for write in writes.reversed() {
            if case .call(let record) = write, !seen.insert(record.id).inserted {
                continue
            }
            kept.append(write)
        }
        return kept.reversed()
    }
}
