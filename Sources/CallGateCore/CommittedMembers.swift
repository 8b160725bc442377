import Synchronization

/// The participant uids last committed for each call still open in the log, so that a store
/// saving a call again finds which `call_members` rows to add or delete without reading them
/// back.
///
/// Read inside the store's write transactions and updated once one commits (`commit`): a
/// transaction that rolled back, or whose commit is in doubt, leaves the entries as they were,
/// so they are never ahead of the database (a store's member writes are idempotent, so an entry
/// behind it only costs a write). Calls leave at their terminal save, so it holds open calls
/// only. Any thread.
public final class CommittedMembers: Sendable {
    private let entries = Mutex<[Int64: [String]]>([:])

    public init() {}

    /// The participant uids, in order, committed for open call `id`; nil when unknown (then
    /// read the call's row, or write its members whole).
    public func uids(of id: Int64) -> [String]? {
        entries.withLock { $0[id] }
    }

    /// Takes over what a committed transaction wrote for each saved call: the participant uids
    /// of an open call, nil (forget it) for a finished one.
    public func commit(_ saved: [Int64: [String]?]) {
        guard !saved.isEmpty else { return }
        entries.withLock { entries in
            for (id, uids) in saved {
                entries[id] = uids
            }
        }
    }

    /// How many calls it holds.
    public var count: Int {
        entries.withLock { $0.count }
    }
}
