import CallGateCore
import GRDB
import Synchronization

/// The participant uids last committed for each call still open in the log, so that saving a
/// call again finds which `call_members` rows to add or delete without reading them back.
///
/// Filled and read only inside the store's write transactions, which GRDB serializes; a
/// transaction's updates count once it commits, and a rolled-back one leaves the entries as the
/// database still has them. Calls leave at their terminal save, so it holds open calls only.
final class CommittedMembers: Sendable {
    private let entries = Mutex<[Int64: [String]]>([:])

    /// The participant uids, in order, committed for open call `id`; nil when unknown (then
    /// read the call's row).
    func uids(of id: Int64) -> [String]? {
        entries.withLock { $0[id] }
    }

    /// Records, when the transaction of `db` commits, what it wrote for each saved call: the
    /// participant uids of an open call, nothing (forget it) for a finished one.
    func update(after db: Database, with saved: [Int64: [String]?]) {
        guard !saved.isEmpty else { return }
        db.afterNextTransaction(onCommit: { [self] _ in
            entries.withLock { entries in
                for (id, uids) in saved {
                    entries[id] = uids
                }
            }
        })
    }

    /// How many calls it holds.
    var count: Int {
        entries.withLock { $0.count }
    }
}
