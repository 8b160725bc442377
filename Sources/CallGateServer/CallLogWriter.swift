import CallGateCore
import CallGateProtocol
import Foundation
import LWS
import Logging

/// Writes call log and group changes to the store on a thread of its own, in submission order,
/// with group commit: everything submitted while a transaction runs goes into the next one.
///
/// `submit` is called on the service thread and never waits for the disk; `onCommitted` runs on
/// the writer thread after each transaction with the highest sequence number it made durable,
/// the session ids of the calls the store fenced out (cluster mode: another node owns them
/// now, so this node must drop them and release nothing it held back for them), and the users
/// whose count of unseen missed calls the transaction changed, with the count after it.
///
/// A failed transaction is told apart by the store's own probe (`isWritable`): when the store
/// refuses the probe too, it is an outage, and the batch is retried (with backoff, logged) until
/// the store takes it, so nothing is dropped while the gateway runs; when the probe commits, the
/// store works and something in the batch never will: the batch is applied write by write, and a
/// write the store refuses while it takes the probe is set aside in the dead-letter file, so it
/// never blocks the writes behind it. While idle, the writer probes every `probeInterval`, so
/// `health` notices an outage without a client's write. `stop` gives it a bounded time to drain.
final class CallLogWriter: @unchecked Sendable {
    private let store: any CallLogStore
    private let deadLetters: DeadLetterFile
    private let logger: Logger
    private let metrics: StoreMetrics
    private let probeInterval: Duration
    private let onCommitted: @Sendable (UInt64, _ fenced: Set<String>, _ missedCalls: [String: MissedCalls]) -> Void
    private let onOutboxChanged: @Sendable () -> Void
    /// Guards every member below it.
    private let condition = NSCondition()
    private var pending: [StoreWrite] = []
    /// Writes of the batch being committed.
    private var inFlight = 0
    private var lastSubmitted: UInt64 = 0
    /// Since when the store refuses every write, and what it last said; nil while it takes them.
    private var outage: (since: ContinuousClock.Instant, error: String?)?
    private var stopDeadline: ContinuousClock.Instant?
    private let finished = DispatchSemaphore(value: 0)
    /// Set on the writer thread when a batch was given up at shutdown; read after it ended.
    private var lostWrites = false

    /// Starts the writer thread; `metrics` hears of every commit, failed attempt and write set
    /// aside in `deadLetterPath` (nil: only logged). `onOutboxChanged` runs after a transaction
    /// that put webhook messages in the outbox.
    init(
        store: any CallLogStore, deadLetterPath: String? = nil, logger: Logger, metrics: StoreMetrics,
        probeInterval: Duration = .seconds(10), onOutboxChanged: @escaping @Sendable () -> Void = {},
        onCommitted: @escaping @Sendable (UInt64, _ fenced: Set<String>, _ missedCalls: [String: MissedCalls]) -> Void
    ) {
        self.store = store
        self.deadLetters = DeadLetterFile(path: deadLetterPath, logger: logger)
        self.logger = logger
        self.metrics = metrics
        self.probeInterval = probeInterval
        self.onCommitted = onCommitted
        self.onOutboxChanged = onOutboxChanged
        let thread = Thread { [self] in
            ThreadName.set("cg-store-writer")
            run()
        }
        thread.name = "cg-store-writer"
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

    /// How far behind the writer is and whether the store refuses writes. Any thread.
    var health: StoreHealth {
        condition.lock()
        defer { condition.unlock() }
        return StoreHealth(queuedWrites: pending.count + inFlight, failingSince: outage?.since, lastError: outage?.error)
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
            var applied = StoreApplied()
            let committed = commit(Self.coalesced(batch), applied: &applied)
            condition.lock()
            inFlight = 0
            condition.unlock()
            if committed {
                onCommitted(upTo, Self.sessions(of: applied.fenced, in: batch), applied.missedCalls)
                if batch.contains(where: \.isWebhook) {
                    onOutboxChanged()
                }
            }
        }
        do {
            try store.flush()
        } catch {
            logger.warning("the store could not write what it held at stop; it rebuilds it at the next start", metadata: ["error": "\(error)"])
        }
        finished.signal()
    }

    /// Waits for work, probing the store every `probeInterval` while there is none; nil once
    /// stopping with nothing left.
    private func nextBatch() -> ([StoreWrite], UInt64)? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty, stopDeadline == nil {
            let seconds = Double(probeInterval.components.seconds) + Double(probeInterval.components.attoseconds) / 1e18
            if !condition.wait(until: Date(timeIntervalSinceNow: seconds)), pending.isEmpty, stopDeadline == nil {
                condition.unlock()
                let writable = store.isWritable()
                condition.lock()
                note(writable: writable, error: writable ? nil : "the store's write probe failed")
            }
        }
        guard !pending.isEmpty else { return nil }
        defer { pending.removeAll(keepingCapacity: true) }
        inFlight = pending.count
        return (pending, lastSubmitted)
    }

    /// Applies one batch: whole, or write by write when the store works but refuses the batch;
    /// retries with backoff while the store refuses everything. Adds what the store did (the
    /// calls it fenced out, the missed-call counts it changed) to `applied`. False only when
    /// stopping ran out of time.
    private func commit(_ batch: [StoreWrite], applied: inout StoreApplied) -> Bool {
        var remaining = batch[...]
        var delayMillis = 50
        while !remaining.isEmpty {
            do {
                let started = ContinuousClock.now
                applied = applied.merged(with: try store.apply(Array(remaining)))
                metrics.committed(writes: remaining.count, in: .now - started)
                noteLocked(writable: true, error: nil)
                return true
            } catch {
                metrics.writeFailed()
                if store.isWritable() {
                    remaining = applySeparately(remaining, applied: &applied)
                    if remaining.isEmpty { return true }
                } else {
                    logger.error("call log write failed; retrying", metadata: ["error": "\(error)", "writes": "\(remaining.count)"])
                    noteLocked(writable: false, error: "\(error)")
                }
            }
            if let deadline = stopDeadlineNow(), ContinuousClock.now + .milliseconds(delayMillis) > deadline {
                logger.critical("call log writes lost at shutdown", metadata: ["writes": "\(remaining.count)"])
                lostWrites = true
                return false
            }
            Thread.sleep(forTimeInterval: TimeInterval(delayMillis) / 1000)
            delayMillis = min(delayMillis * 2, 2000)
        }
        return true
    }

    /// Applies `writes` one at a time; one the store refuses while its probe commits goes to the
    /// dead-letter file, and so do the webhook messages of a call whose save it refused (an
    /// event is never sent for a change that was not committed), and so are those of a call it
    /// fenced out, which it adds to `applied` (with the missed-call counts each write changed).
    /// Returns what is left when the store stopped taking writes meanwhile.
    private func applySeparately(_ batch: ArraySlice<StoreWrite>, applied: inout StoreApplied) -> ArraySlice<StoreWrite> {
        // Every webhook message after the saves: a message is written only once the call it
        // reports was saved (not refused, not fenced out), whatever order coalescing left.
        let writes = ArraySlice(batch.filter { !$0.isWebhook } + batch.filter(\.isWebhook))
        let started = ContinuousClock.now
        var count = 0
        var refusedSessions = Set<String>()
        var fencedSessions = Set<String>()
        defer {
            if count > 0 { metrics.committed(writes: count, in: .now - started) }
        }
        for index in writes.indices {
            if case .webhook(let message) = writes[index] {
                if refusedSessions.contains(message.event.sessionId) {
                    deadLetters.append(writes[index], error: StoreWriteSetAside.callRefused)
                    metrics.deadLettered()
                    continue
                }
                if fencedSessions.contains(message.event.sessionId) {
                    continue
                }
            }
            do {
                let one = try store.apply([writes[index]])
                applied = applied.merged(with: one)
                if case .call(let record) = writes[index], !one.fenced.isEmpty {
                    fencedSessions.insert(record.sessionId)
                }
                count += 1
            } catch {
                guard store.isWritable() else {
                    noteLocked(writable: false, error: "\(error)")
                    return writes[index...]
                }
                deadLetters.append(writes[index], error: error)
                metrics.deadLettered()
                if case .call(let record) = writes[index] {
                    refusedSessions.insert(record.sessionId)
                }
            }
        }
        noteLocked(writable: true, error: nil)
        return []
    }

    /// Records whether the store takes writes; the lock is held.
    private func note(writable: Bool, error: String?) {
        if writable {
            if outage != nil {
                logger.notice("the call log store takes writes again")
            }
            outage = nil
        } else {
            outage = (outage?.since ?? .now, error)
        }
    }

    private func noteLocked(writable: Bool, error: String?) {
        condition.lock()
        defer { condition.unlock() }
        note(writable: writable, error: error)
    }

    private func stopDeadlineNow() -> ContinuousClock.Instant? {
        condition.lock()
        defer { condition.unlock() }
        return stopDeadline
    }

    /// The session ids of the calls `ids` saved in `batch`.
    static func sessions(of ids: Set<Int64>, in batch: [StoreWrite]) -> Set<String> {
        guard !ids.isEmpty else { return [] }
        var sessions = Set<String>()
        for case .call(let record) in batch where ids.contains(record.id) {
            sessions.insert(record.sessionId)
        }
        return sessions
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

/// Why a write was set aside without the store refusing it.
enum StoreWriteSetAside: Error, CustomStringConvertible {
    /// A webhook message whose call's save the store refused for good.
    case callRefused

    var description: String {
        "the save of the call this event reports was refused, so the event is not sent"
    }
}

extension StoreWrite {
    /// Whether it puts a webhook message in the outbox.
    var isWebhook: Bool {
        if case .webhook = self { return true }
        return false
    }
}

/// How the store writer is doing, for `/readyz` and for refusing ops that would write while
/// the store is behind. A snapshot; any thread.
struct StoreHealth: Equatable, Sendable {
    /// Writes submitted and not yet committed (or set aside).
    var queuedWrites = 0
    /// When the store began refusing every write, nil while it takes them: the last write,
    /// retry or idle probe succeeded.
    var failingSince: ContinuousClock.Instant?
    /// What the store said when it last refused a write, while it refuses them.
    var lastError: String?
}

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
