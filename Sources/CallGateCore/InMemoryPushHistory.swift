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
/// `maxEntriesPerUser` per user, and all of it in at most `maxBytes` (frames counted
/// once however many users share them, plus a fixed cost per push and per user); what goes
/// past a bound goes oldest first, and a device whose missed pushes went with it is told it did
/// not recover.
///
/// A push whose event is replaced by the next (`EventName.isReplacedByNext`: the missed-call
/// count) lets go of the frame of the user's push of it before, once kept: a recovery passes
/// over the replaced one and gives the newest, so a user whose count changes every few seconds
/// holds one count frame, not one per change within the window (each change still takes a
/// number, an entry of the log and its place under the per-user cap).
///
/// Every push of every user is one entry of a single log in the order they were kept, linked to
/// the same user's entry before it: keeping a push appends to the log and touches the user's
/// sequence only, and the window and the byte bound evict from the log's front; a recovery
/// walks the user's links back. A push past `maxEntriesPerUser` can no longer be recovered at
/// once; its frame is let go in a batch once a user holds twice the cap, so one busy user holds
/// at most twice the cap's frames. Recording a push, the hot path of every delivery, trims in batches: past the window
/// at most once per `trimMillis`, and past `maxBytes` at once, the pushes' share down to 7/8 of
/// what is left to them beside the sequences, so a history
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
    /// What the sequences themselves are charged, which no eviction of pushes frees.
    private var userBytes = 0

    /// One user's sequence; a class, so an entry of the log reaches it without hashing the uid.
    private final class Sequence {
        let uid: String
        let epoch: String
        var last: UInt64 = 0
        /// The oldest seq a recovery may still be given: older ones went past the per-user cap.
        var firstKept: UInt64 = 1
        /// The oldest seq whose frame the log still holds; the cap lets older ones go.
        var heldFrom: UInt64 = 1
        /// The log position of the user's newest push; -1 before any.
        var newest = -1
        /// The log position of the user's newest push whose event is replaced by the next; -1
        /// before any.
        var newestReplaceable = -1
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

    /// One entry of the log: a kept push, or (`frame` nil) a sequence's last touch, which the
    /// window evicts like a push so a user with no device and no push left is forgotten.
    private struct Entry {
        let sequence: Sequence
        let seq: UInt64
        /// The push's frame; nil for a touch, once the per-user cap let it go, and once replaced.
        var frame: HistoryFrame?
        /// Whether a newer push of its event replaced it: a recovery passes over it.
        var replaced = false
        let excluding: ConnectionID?
        let at: Int64
        /// The log position of the same user's push before this one; -1 for none.
        let previous: Int
    }

    private let limits: PushHistoryLimits
    private let clock: any CoreClock
    private let origin: String
    private var begun: UInt64 = 0
    private var sequences: [String: Sequence] = [:]
    /// Every entry kept, oldest first; `log[0]` is at position `evicted`, positions only grow.
    private var log: Deque<Entry> = []
    /// How many entries left the log's front so far: the position of its first entry.
    private var evicted = 0
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
            touch(sequence)
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
        log.append(Entry(sequence: sequence, seq: sequence.last, frame: frame, excluding: excluding, at: now, previous: sequence.newest))
        sequence.newest = evicted + log.count - 1
        let cap = UInt64(max(limits.maxEntriesPerUser, 0))
        if sequence.last - sequence.firstKept >= cap {
            sequence.firstKept = sequence.last + 1 - cap
        }
        if frame.holders == 0 { held += frame.head.count }
        frame.holders += 1
        held += Self.bytesPerPush
        if frame.event.isReplacedByNext {
            replaceEarlier(in: sequence)
        }
        if sequence.last - sequence.heldFrom >= 2 * max(cap, 1) - 1 {
            letGoPastTheCap(sequence)
        }
        if now >= nextTrim || held > limits.maxBytes {
            trim(at: now)
        }
        return sequence.last
    }

    /// The push just kept for `sequence` replaces its push of the same kind before, if the log
    /// still holds that one's frame: the frame goes, the entry stays for the numbering.
    private func replaceEarlier(in sequence: Sequence) {
        let earlier = sequence.newestReplaceable
        sequence.newestReplaceable = sequence.newest
        guard earlier >= evicted, let frame = log[earlier - evicted].frame else { return }
        log[earlier - evicted].frame = nil
        log[earlier - evicted].replaced = true
        release(frame)
    }

    /// Lets go of the frames of `sequence`'s pushes that went past the per-user cap: walks its
    /// links back past the pushes still kept, then clears the frames older than them. Done once
    /// the user holds twice the cap, so each push pays for about two steps.
    private func letGoPastTheCap(_ sequence: Sequence) {
        var next = sequence.newest
        while next >= evicted, log[next - evicted].seq >= sequence.heldFrom {
            let position = next - evicted
            next = log[position].previous
            guard log[position].seq < sequence.firstKept, let frame = log[position].frame else { continue }
            log[position].frame = nil
            release(frame)
        }
        sequence.heldFrom = sequence.firstKept
    }

    /// Where `uid`'s sequence stands now: its epoch and the last seq given (0 before any push).
    public func position(of uid: String) -> HistoryPosition {
        trim()
        guard let sequence = sequences[uid] else {
            let sequence = begin(uid)
            touch(sequence)
            return HistoryPosition(epoch: sequence.epoch, seq: 0)
        }
        return HistoryPosition(epoch: sequence.epoch, seq: sequence.last)
    }

    /// The pushes to `uid` after `position`, oldest first, but those a newer push replaced; nil
    /// when they cannot all be given: another epoch, a seq ahead of the sequence, or pushes after
    /// it no longer kept.
    public func entries(for uid: String, after position: HistoryPosition) -> [HistoryEntry]? {
        trim()
        guard let sequence = sequences[uid], sequence.epoch == position.epoch, position.seq <= sequence.last,
              position.seq + 1 >= sequence.firstKept
        else {
            return nil
        }
        var missed: [HistoryEntry] = []
        var walked: UInt64 = 0
        var next = sequence.newest
        while next >= evicted, case let entry = log[next - evicted], entry.seq > position.seq {
            if let frame = entry.frame {
                missed.append(HistoryEntry(seq: entry.seq, frame: frame, excluding: entry.excluding))
            } else if !entry.replaced {
                break
            }
            walked += 1
            next = entry.previous
        }
        guard walked == sequence.last - position.seq else { return nil }
        return missed.reversed()
    }

    /// Begins a sequence for `uid` in a new epoch.
    private func begin(_ uid: String) -> Sequence {
        begun += 1
        let charge = Self.charge(of: uid)
        userBytes += charge
        held += charge
        let sequence = Sequence(uid: uid, epoch: "\(origin)-\(String(begun, radix: 36))", touched: clock.monotonicMillis())
        sequences[uid] = sequence
        return sequence
    }

    /// What the sequence of `uid` is charged against `maxBytes` while it exists.
    private static func charge(of uid: String) -> Int {
        bytesPerUser + uid.utf8.count
    }

    /// Logs `sequence`'s last touch, so the window forgets it once it is past.
    private func touch(_ sequence: Sequence) {
        log.append(Entry(sequence: sequence, seq: 0, frame: nil, excluding: nil, at: sequence.touched, previous: -1))
        held += Self.bytesPerPush
    }

    private func release(_ frame: HistoryFrame) {
        frame.holders -= 1
        if frame.holders == 0 { held -= frame.head.count }
    }

    /// Evicts from the log's front every entry past the window and, when the history holds more
    /// than `maxBytes`, the oldest of all until the log's share of the budget (what the
    /// sequences themselves take aside) is down to 7/8; a sequence whose last push or touch is
    /// evicted while it has no device and no push left is forgotten.
    private func trim(at now: Int64? = nil) {
        let now = now ?? clock.monotonicMillis()
        nextTrim = now + Self.trimMillis
        let room = max(limits.maxBytes - userBytes, 0)
        let budget = held > limits.maxBytes ? userBytes + room - room / 8 : limits.maxBytes
        while let entry = log.first, entry.at <= now - limits.windowMillis || held > budget {
            log.removeFirst()
            evicted += 1
            held -= Self.bytesPerPush
            if let frame = entry.frame {
                release(frame)
            }
            let sequence = entry.sequence
            if !sequence.forgotten && sequence.devices == 0 && sequence.newest < evicted && entry.at >= sequence.touched {
                sequence.forgotten = true
                sequences[sequence.uid] = nil
                let charge = Self.charge(of: sequence.uid)
                userBytes -= charge
                held -= charge
            }
        }
    }
}
