import CallGateCore
import GRDB
import Synchronization

/// The participants last committed for each call still open in the log, so that saving a call
/// again diffs against memory instead of reading its rows back: a 100-member group call is
/// saved at its ring and again at its end, and reading the 100 rows back cost as much as
/// writing the changed ones.
///
/// Filled and read only inside the store's write transactions, which GRDB serializes; a
/// transaction's updates count once it commits, and a rolled-back one leaves the entries as the
/// database still has them. Calls leave at their terminal save, so it holds open calls only.
final class CommittedParticipants: Sendable {
    private let entries = Mutex<[Int64: [CallLogParticipantRecord]]>([:])

    /// The participants committed for open call `id`, nil when unknown (then read the rows).
    func participants(of id: Int64) -> [CallLogParticipantRecord]? {
        entries.withLock { $0[id] }
    }

    /// Records, when the transaction of `db` commits, what it wrote for each saved call: the
    /// participants of an open call, nothing (forget it) for a finished one.
    func update(after db: Database, with saved: [Int64: [CallLogParticipantRecord]?]) {
        guard !saved.isEmpty else { return }
        db.afterNextTransaction(onCommit: { [self] _ in
            entries.withLock { entries in
                for (id, participants) in saved {
                    entries[id] = participants
                }
            }
        })
    }

    /// How many calls it holds.
    var count: Int {
        entries.withLock { $0.count }
    }
}
