import CallGateProtocol

/// Where each user's missed calls are kept with whether a device marked them seen, and the count
/// of those not seen yet (`MissedCalls`), in the same store as the call log.
///
/// A call becomes missed for a user when a saved record says so (`CallLogRecord.missedUIDs`):
/// `apply` notes it in the transaction that saves the record, once per user and call, and
/// reports the counts it changed (`StoreApplied.missedCalls`). A save that leaves a user out of
/// a call's participants drops it as their missed call (a call outside their log is not theirs
/// to see). Every change to a user's count raises its revision by one per transaction, so
/// counts told by different nodes can be ordered. Calls missed before a store had this ledger
/// count as seen.
///
/// Thread-safe, like `CallLogStore`: `markCallsSeen` and the reads run on any thread but the
/// service thread, beside the writer's transactions.
public protocol MissedCallStore {
    /// Where the missed calls of each of `uids` stand, in one read; unseen 0, revision 0 for a
    /// user who never missed one. A connect burst reads its users' counts in batches.
    func missedCalls(of uids: some Collection<String>) throws -> [String: MissedCalls]
    /// Marks `uid`'s unseen missed calls seen at `at` (Unix milliseconds), durably: every one, or
    /// with `sessionId` those up to that call in their log (call log order, it included).
    /// Returns the count after and how many it marked; nil, changing nothing, when `sessionId`
    /// names no call of uid's log. The SQL stores mark them in steps of a few hundred calls of
    /// the user's log each (`SeenWalk`), one transaction (and one revision) per step.
    func markCallsSeen(of uid: String, through sessionId: String?, at: Int64) throws -> SeenMark?
    /// Which of the calls `ids` are missed calls of `uid` that no device marked seen yet.
    func unseenMissedCalls(of uid: String, among ids: [Int64]) throws -> Set<Int64>
}

extension MissedCallStore {
    /// Where `uid`'s missed calls stand; unseen 0, revision 0 for a user who never missed one.
    public func missedCalls(of uid: String) throws -> MissedCalls {
        try missedCalls(of: CollectionOfOne(uid))[uid] ?? MissedCalls(unseen: 0, revision: 0)
    }
}

/// What a `markCallsSeen` did: the count after it, and how many calls it marked (0: nothing
/// changed, and the revision is the one before).
public struct SeenMark: Hashable, Sendable {
    /// The user's count after the change.
    public var count: MissedCalls
    /// How many unseen missed calls it marked seen.
    public var marked: Int

    /// Makes a result.
    public init(count: MissedCalls, marked: Int) {
        self.count = count
        self.marked = marked
    }
}

/// What one `apply` transaction did beyond its writes.
public struct StoreApplied: Hashable, Sendable {
    /// The ids of the calls left unwritten because another owner holds them now (cluster mode).
    public var fenced: Set<Int64>
    /// The users whose count of unseen missed calls the transaction changed, with the count
    /// after it.
    public var missedCalls: [String: MissedCalls]

    /// Makes a result.
    public init(fenced: Set<Int64> = [], missedCalls: [String: MissedCalls] = [:]) {
        self.fenced = fenced
        self.missedCalls = missedCalls
    }

    /// This result followed by `later`'s: the fenced calls of both, and each user's newer count.
    public func merged(with later: StoreApplied) -> StoreApplied {
        StoreApplied(
            fenced: fenced.union(later.fenced),
            missedCalls: missedCalls.merging(later.missedCalls) { earlier, newer in
                newer.revision >= earlier.revision ? newer : earlier
            })
    }
}
