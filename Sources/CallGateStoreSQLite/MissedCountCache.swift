import CallGateProtocol
import Synchronization

/// The unseen missed-call counts the writer changed since it last wrote them to
/// `missed_call_counts`, held here and written together every ten seconds.
///
/// A cancelled group ring raises the counts of its members; with every transaction writing them,
/// a member missing a call a second cost the writer an upsert a second (about 4 µs each: a fifth
/// of the group benchmark's writer). Held here, a user's count is read once and written once per
/// interval however many calls they miss in it. The missed calls themselves are written at once,
/// in the transaction that makes them: they are the record the counts are rebuilt from if the
/// process dies before it wrote them (`SQLiteCallLogStore.recountMissedCalls`, from
/// `missed_count_state.recount_from`).
///
/// An entry is a user's count as it stands (what readers see before the table), written by the
/// transactions that change it inside their write access (`StoreTransaction.stageMissedCounts`
/// reads it, `commit` takes what a committed transaction changed). A user's revision rises at
/// most once per transaction, and the counts are written before `maxTransactions` transactions
/// changed them, so the revisions told since the last write are fewer than `revisionHeadroom`.
/// Any thread.
final class MissedCountCache: Sendable {
    /// A user's count and where their unseen missed calls start.
    struct Entry: Hashable, Sendable {
        var count: MissedCalls
        var unseenFrom: Int64?
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// The transactions that changed counts since the last write.
        var transactions = 0
        /// When the counts were last written.
        var writtenAt = ContinuousClock.now
        /// The lowest call id whose missed calls may be missing from the written counts (the
        /// table's `recount_from`); nil when the table is complete.
        var recountFrom: Int64?
    }

    private let state = Mutex(State())
    /// Write the counts at least this often, when any changed.
    let interval: Duration
    /// Write the counts once this many transactions changed them.
    let maxTransactions: Int

    /// A cache whose counts are written at least every `interval`, and once `maxTransactions`
    /// transactions changed them.
    init(interval: Duration = .seconds(10), maxTransactions: Int = 8_191) {
        self.interval = interval
        self.maxTransactions = maxTransactions
    }

    /// What a recount after a crash adds to a user's written revision: more than the revisions
    /// told since the write.
    var revisionHeadroom: Int64 {
        Int64(maxTransactions) + 1
    }

    /// The counts of those of `uids` it holds.
    func entries(for uids: some Sequence<String>) -> [String: Entry] {
        state.withLock { state in
            var found: [String: Entry] = [:]
            for uid in uids {
                if let entry = state.entries[uid] {
                    found[uid] = entry
                }
            }
            return found
        }
    }

    /// Every count it holds.
    var all: [String: Entry] {
        state.withLock { $0.entries }
    }

    /// Whether a transaction should write every count, given whether it changes some: it holds
    /// or changes some, and the interval passed or the transactions allowed between writes are
    /// used up.
    func isDue(changing: Bool) -> Bool {
        state.withLock { state in
            guard changing || !state.entries.isEmpty else { return false }
            return state.transactions + 1 >= maxTransactions || ContinuousClock.now - state.writtenAt >= interval
        }
    }

    /// The `recount_from` the table has, as this process last wrote it (nil at opening: the
    /// recount left the table complete).
    var recountFrom: Int64? {
        state.withLock { $0.recountFrom }
    }

    /// Takes over what a committed transaction did: the counts it changed (`staged`), and, when
    /// it wrote every count, that the table is complete again.
    func commit(_ staged: [String: Entry], recountFrom: Int64?, wroteAll: Bool) {
        state.withLock { state in
            state.recountFrom = recountFrom
            if wroteAll {
                state.entries = [:]
                state.transactions = 0
                state.writtenAt = .now
            } else if !staged.isEmpty {
                state.entries.merge(staged) { _, new in new }
                state.transactions += 1
            }
        }
    }

    /// Forgets `uid`'s count: a committed transaction wrote it to the table.
    func wrote(_ uid: String) {
        state.withLock { _ = $0.entries.removeValue(forKey: uid) }
    }
}
