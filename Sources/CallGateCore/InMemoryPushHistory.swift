import DequeModule

/// Each user's recent pushes, numbered, in the memory of one gateway process, so a device that
/// reconnects is given what it missed.
///
/// Every push to a user gets the next number of that user's sequence (`seq`, from 1), the same
/// on each of the user's devices. A user's sequence lives in an `epoch`: a string that changes
/// whenever the history of that user may have lost pushes (a restart, a sequence forgotten and
/// begun again), so a position `(epoch, seq)` names one point of one unbroken sequence. Epochs
/// are `<origin>-<n>`: `origin` is fresh for every process, `n` counts the sequences it began.
/// (In cluster mode the shared history is Redis's `PushStream`.)
///
/// A user's sequence exists while one of their devices is connected (`attach`/`detach`) and
/// for `windowMillis` after their last push or last disconnect, whichever is later; forgotten,
/// it begins again at seq 1 in a new epoch. Each push is kept for `windowMillis`, at most
/// `maxEntriesPerUser` per user, and all of it in at most `maxBytes` (frames counted once
/// however many users share them, plus a fixed cost per push and per user); what goes past a
/// bound goes oldest first, and a device whose missed pushes went with it is told it did not
/// recover. Recording a push, the hot path of every delivery, trims in batches: past the window
/// at most once per `trimMillis`, and past `maxBytes` at once, down to 7/8 of it, so a history
/// at its budget does not evict on every push. Every read trims first, so what a read sees of
/// the window is exact. Service thread only.
public final class InMemoryPushHistory {
    /// The bookkeeping charged per kept push and per user against `maxBytes`, beyond the frames.
    public static let bytesPerPush = 96
    public static let bytesPerUser = 192
    /// How long recording may go without trimming past the window: what it keeps meanwhile is
    /// still bounded by `maxBytes`.
    public static let trimMillis: Int64 = 1_000

    /// The bytes held now, as charged against `maxBytes`.
    public var bytes: Int {
        trim()
        return held
    }

    private var held = 0

    /// One user's sequence; a class, so its entries grow in place in the dictionary and a
    /// stamp reaches it without hashing the uid.
    private final class Sequence {
        let uid: String
        let epoch: String
        var last: UInt64 = 0
        var entries: Deque<HistoryEntry> = []
        var devices = 0
        /// When it last had a push or lost its last device, monotonic milliseconds.
        var touched: Int64
        /// Set once it left `sequences`: a sequence begun again for the user is another one.
        var forgotten = false

        init(uid: String, epoch: String, touched: Int64) {
            self.uid = uid
            self.epoch = epoch
            self.touched = touched
        }
    }

    /// A kept push (`seq` > 0) or a sequence's last touch (`seq` 0), oldest first: what the
    /// window and the byte bound evict from.
    private struct Stamp {
        let sequence: Sequence
        let seq: UInt64
        let at: Int64
    }

    private let limits: PushHistoryLimits
    private let clock: any CoreClock
    private let origin: String
    private var begun: UInt64 = 0
    private var sequences: [String: Sequence] = [:]
    private var stamps: Deque<Stamp> = []
    /// When recording trims past the window next, monotonic milliseconds.
    private var nextTrim: Int64 = .min

    /// An empty history; `origin` starts every epoch it gives and must differ between processes
    /// (the server draws 64 random bits).
    public init(limits: PushHistoryLimits, clock: any CoreClock, origin: String) {
        self.limits = limits
        self.clock = clock
        self.origin = origin
    }

    /// How many users have a sequence now.
    public var userCount: Int {
        trim()
        return sequences.count
    }

    /// A device of `uid` connected: their sequence exists (begun if need be) at least until it
    /// detaches.
    public func attach(_ uid: String) {
        trim()
        let sequence = sequences[uid] ?? begin(uid)
        sequence.devices += 1
    }

    /// A device of `uid` disconnected: with their last device gone, their sequence lives on
    /// for the window, so a device back within it recovers.
    public func detach(_ uid: String) {
        guard let sequence = sequences[uid] else { return }
        sequence.devices = max(0, sequence.devices - 1)
        if sequence.devices == 0 {
            sequence.touched = clock.monotonicMillis()
            stamps.append(Stamp(sequence: sequence, seq: 0, at: sequence.touched))
            held += Self.bytesPerPush
        }
        trim()
    }

    /// Numbers `frame` as the next push to `uid`, keeps it, and returns its `seq`; nil when
    /// `uid` has no sequence (no device of theirs attached within the window), so nothing is
    /// kept for users no device can recover as. `excluding` is the device that did not get it
    /// (the one whose request caused it). Trims after, not before: a sequence past its window
    /// and not trimmed yet is left alone.
    public func record(_ frame: HistoryFrame, for uid: String, excluding: ConnectionID?) -> UInt64? {
        let now = clock.monotonicMillis()
        guard let sequence = sequences[uid], sequence.devices > 0 || sequence.touched > now - limits.windowMillis else {
            return nil
        }
        sequence.last += 1
        sequence.touched = now
        sequence.entries.append(HistoryEntry(seq: sequence.last, frame: frame, excluding: excluding))
        if frame.holders == 0 { held += frame.head.count }
        frame.holders += 1
        held += Self.bytesPerPush
        stamps.append(Stamp(sequence: sequence, seq: sequence.last, at: now))
        if sequence.entries.count > limits.maxEntriesPerUser, let oldest = sequence.entries.popFirst() {
            release(oldest.frame)
        }
        if now >= nextTrim || held > limits.maxBytes {
            trim(at: now)
        }
        return sequence.last
    }

    /// Where `uid`'s sequence stands now: its epoch and the last seq given (0 before any push).
    public func position(of uid: String) -> HistoryPosition {
        trim()
        guard let sequence = sequences[uid] else {
            let sequence = begin(uid)
            stamps.append(Stamp(sequence: sequence, seq: 0, at: sequence.touched))
            held += Self.bytesPerPush
            return HistoryPosition(epoch: sequence.epoch, seq: 0)
        }
        return HistoryPosition(epoch: sequence.epoch, seq: sequence.last)
    }

    /// The pushes to `uid` after `position`, oldest first, or nil when they cannot all be given:
    /// another epoch, a seq ahead of the sequence, or pushes after it no longer kept.
    public func entries(for uid: String, after position: HistoryPosition) -> [HistoryEntry]? {
        trim()
        guard let sequence = sequences[uid], sequence.epoch == position.epoch, position.seq <= sequence.last else {
            return nil
        }
        let firstKept = sequence.entries.first?.seq ?? sequence.last + 1
        guard position.seq + 1 >= firstKept else { return nil }
        return sequence.entries.filter { $0.seq > position.seq }
    }

    /// Begins a sequence for `uid` in a new epoch.
    private func begin(_ uid: String) -> Sequence {
        begun += 1
        held += Self.bytesPerUser + uid.utf8.count
        let sequence = Sequence(uid: uid, epoch: "\(origin)-\(String(begun, radix: 36))", touched: clock.monotonicMillis())
        sequences[uid] = sequence
        return sequence
    }

    private func release(_ frame: HistoryFrame) {
        frame.holders -= 1
        if frame.holders == 0 { held -= frame.head.count }
    }

    /// Evicts, oldest first, every push past the window and, when the history holds more than
    /// `maxBytes`, the oldest pushes of all down to 7/8 of it; a sequence whose last touch is
    /// evicted while it has no device and no kept push is forgotten.
    private func trim(at now: Int64? = nil) {
        let now = now ?? clock.monotonicMillis()
        nextTrim = now + Self.trimMillis
        let budget = held > limits.maxBytes ? limits.maxBytes - limits.maxBytes / 8 : limits.maxBytes
        while let stamp = stamps.first, stamp.at <= now - limits.windowMillis || held > budget {
            stamps.removeFirst()
            held -= Self.bytesPerPush
            let sequence = stamp.sequence
            guard !sequence.forgotten else { continue }
            if stamp.seq > 0, let oldest = sequence.entries.first, oldest.seq == stamp.seq {
                sequence.entries.removeFirst()
                release(oldest.frame)
            }
            if sequence.devices == 0 && sequence.entries.isEmpty && stamp.at >= sequence.touched {
                sequence.forgotten = true
                sequences[sequence.uid] = nil
                held -= Self.bytesPerUser + sequence.uid.utf8.count
            }
        }
    }
}
